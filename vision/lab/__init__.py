"""Lab: trials and studies run as ``python -m vision.lab.NAME`` (threshold sweeps, error
studies, enrollment recipes, classifier trials, other runtimes). Each prints JSON figures;
the model card and ``docs/history.md`` quote them. Nothing at run time imports this.
"""
