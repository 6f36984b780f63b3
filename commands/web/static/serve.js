// The phone page: the score sheet polls its JSON; a tapped count fills the correction form.
"use strict";

function pollSheet(table) {
  const url = table.dataset.sheet;
  const game = table.dataset.game;
  const every = Number(table.dataset.poll || 3) * 1000;
  let shown = table.tBodies[0].rows.length;
  async function refresh() {
    try {
      const r = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (!r.ok) return;
      const sheet = await r.json();
      const names = sheet.game.players.map((p) => p.name);
      const body = document.createElement("tbody");
      for (const round of sheet.rounds) {
        const tr = body.insertRow();
        const a = document.createElement("a");
        a.href = `/games/${game}/rounds/${round.round}`;
        a.textContent = String(round.round);
        tr.insertCell().append(a);
        for (const n of names) {
          const td = tr.insertCell();
          td.className = "n";
          td.textContent = String(round.players[n].points);
        }
      }
      if (sheet.rounds.length > shown && body.rows.length) body.rows[body.rows.length - 1].classList.add("new");
      shown = sheet.rounds.length;
      table.replaceChild(body, table.tBodies[0]);
      for (const th of table.querySelectorAll("[data-total]")) {
        th.textContent = String(sheet.totals[th.dataset.total]);
      }
      const status = document.getElementById("status");
      if (status) {
        status.textContent = sheet.over
          ? `Game over: ${sheet.winners.join(" and ")} won.`
          : sheet.leaders.length && sheet.rounds.length ? `Leading: ${sheet.leaders.join(", ")}.` : "";
      }
    } catch (e) {
      // Offline for a moment: try again at the next tick.
    }
  }
  setInterval(refresh, every);
}

function tapToCorrect() {
  const form = document.getElementById("correct");
  if (!form) return;
  for (const b of document.querySelectorAll("button.count")) {
    b.addEventListener("click", () => {
      form.elements.player.value = b.dataset.player;
      form.elements.label.value = b.dataset.label;
      form.elements.count.value = b.dataset.count;
      form.elements.reason.focus();
      form.scrollIntoView({ behavior: "smooth", block: "center" });
    });
  }
}

function busyWhileCounting() {
  const form = document.getElementById("round-photos");
  if (!form) return;
  form.addEventListener("submit", () => {
    document.getElementById("busy").hidden = false;
    form.querySelector("button").disabled = true;
  });
}

document.addEventListener("DOMContentLoaded", () => {
  const table = document.getElementById("sheet");
  if (table) pollSheet(table);
  tapToCorrect();
  busyWhileCounting();
});
