// Refreshes the part of the page marked data-refresh every 5 s from ?fragment=1.
(function () {
  "use strict";
  var target = document.querySelector("[data-refresh]");
  var note = document.getElementById("refreshed");
  if (!target) { return; }
  var last = null;
  function show(text) { if (note) { note.textContent = text; } }
  function refresh() {
    var url = new URL(window.location.href);
    url.searchParams.set("fragment", "1");
    fetch(url.toString(), { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) {
        if (html !== last) { target.innerHTML = html; last = html; }
        show("updated " + new Date().toLocaleTimeString());
      })
      .catch(function (error) { show("refresh failed (" + error.message + ")"); });
  }
  window.setInterval(refresh, 5000);
})();
