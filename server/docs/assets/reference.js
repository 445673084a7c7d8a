// Renders the document this service serves with Swagger UI. A file rather than an inline script,
// so the page's Content-Security-Policy allows scripts from this service and nothing else.
"use strict";
(function () {
  var root = document.getElementById("reference");
  window.SwaggerUIBundle({
    url: root.getAttribute("data-document"),
    domNode: root,
    deepLinking: true,
    // The default would send the document to the public validator; nothing leaves the service.
    validatorUrl: null,
    // "Try it out" calls the service that served this page, wherever it runs: the document's
    // servers entry names the development address, which the policy would refuse elsewhere.
    requestInterceptor: function (request) {
      var target = new URL(request.url, window.location.href);
      request.url = window.location.origin + target.pathname + target.search;
      return request;
    },
  });
})();
