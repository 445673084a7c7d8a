// Refreshes a page's changing numbers: the page names a JSON document of them (data-poll on
// <main>), and every element marked data-live="key" shows that document's value for its key.
"use strict";
(function () {
  var main = document.querySelector("main[data-poll]");
  if (!main) {
    return;
  }
  var url = main.getAttribute("data-poll");
  var intervalMs = 3000;

  function show(document_) {
    var marked = document.querySelectorAll("[data-live]");
    for (var i = 0; i < marked.length; i++) {
      var key = marked[i].getAttribute("data-live");
      if (Object.prototype.hasOwnProperty.call(document_, key)) {
        var text = String(document_[key]);
        if (marked[i].textContent !== text) {
          marked[i].textContent = text;
        }
      }
    }
    main.setAttribute("data-refreshed", String(Date.now()));
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (document_) {
        if (document_) {
          show(document_);
        }
      })
      .catch(function () {
        // The service may be restarting; the next poll tries again.
      })
      .then(function () {
        window.setTimeout(poll, intervalMs);
      });
  }

  window.setTimeout(poll, intervalMs);
})();
