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

// Copies an id: the button beside it (data-copy) puts it on the clipboard where the browser
// allows that (a secure context), and otherwise selects it for the visitor to copy. A cut-short
// id shows whole when tapped or focused (the CSS), so a phone can read it too.
(function () {
  function select(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function done(button, text) {
    var before = button.textContent;
    button.textContent = text;
    window.setTimeout(function () {
      button.textContent = before;
    }, 1500);
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    var button = target && target.closest ? target.closest("button.copy") : null;
    if (button) {
      var value = button.getAttribute("data-copy");
      var shown = button.parentNode.querySelector(".cut");
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(value).then(
          function () {
            done(button, "Copied");
          },
          function () {
            if (shown) {
              select(shown);
            }
          }
        );
      } else if (shown) {
        shown.classList.add("whole");
        select(shown);
        done(button, "Selected");
      }
      return;
    }
    var cut = target && target.closest ? target.closest("span.cut") : null;
    if (cut) {
      cut.classList.toggle("whole");
    }
  });
})();
