/*
 * Starts the bundled Swagger UI on /swagger/index.html (CONTRACT §8.4). The plugin's own initializer reads the
 * document from `./json` relative to the page's address, which from `/swagger/index.html` is
 * `/swagger/index.html/json` (the web front end's HTML, so the UI reports "Unable to render this definition");
 * this one names the document's address outright.
 */
/* global window, SwaggerUIBundle, SwaggerUIStandalonePreset */
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/swagger/doc.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    validatorUrl: null,
  });
};
