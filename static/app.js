// The dashboard's and checkout's few behaviours, kept out of the pages so
// that no inline script is needed:
//  - [data-copy="<selector>"] buttons copy the target's value or text and
//    say so (data-copied) for two seconds;
//  - <time data-countdown datetime="..."> counts down to an instant; at
//    zero the enclosing checkout stops offering its code ([data-payable]
//    hidden, the status line says data-expired-text) and asks the server
//    for its new state (the "expire" trigger of #checkout).
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var target = document.querySelector(button.getAttribute("data-copy"));
    if (!target) return;
    var text = "value" in target && target.value !== undefined ? target.value : target.textContent;
    var done = function () {
      var label = button.textContent;
      button.textContent = button.getAttribute("data-copied") || label;
      setTimeout(function () { button.textContent = label; }, 2000);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text.trim()).then(done, function () { select(target); });
    } else {
      select(target);
    }
  });

  function select(el) {
    if (el.select) { el.select(); return; }
    var range = document.createRange();
    range.selectNodeContents(el);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  var timers = [];

  function startCountdowns(root) {
    root.querySelectorAll("[data-countdown]").forEach(function (el) {
      var end = Date.parse(el.getAttribute("datetime"));
      if (isNaN(end)) return;
      var tick = function () {
        var s = Math.max(0, Math.floor((end - Date.now()) / 1000));
        var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
        el.textContent = (h ? h + " h " : "") + m + " min " + (r < 10 ? "0" : "") + r + " s";
        if (s > 0) return false;
        var card = el.closest("#checkout");
        if (card) {
          card.querySelectorAll("[data-payable]").forEach(function (p) { p.hidden = true; });
          var status = card.querySelector("[data-testid=checkout-status]");
          if (status) status.textContent = el.getAttribute("data-expired-text") || "";
          if (window.htmx) window.htmx.trigger(card, "expire");
        }
        return true;
      };
      if (tick()) return;
      var id = setInterval(function () { if (tick()) clearInterval(id); }, 1000);
      timers.push(id);
    });
  }

  document.addEventListener("DOMContentLoaded", function () { startCountdowns(document); });
  document.addEventListener("htmx:afterSwap", function (event) {
    timers.forEach(clearInterval);
    timers = [];
    startCountdowns(document);
  });
})();
