// Draws the Mermaid charts of the explain panel. Where Mermaid cannot, the charts' source stays
// on the page and the error is shown above the timeline.
/* global mermaid */
(function () {
  const dark = document.body.classList.contains("vscode-dark") || document.body.classList.contains("vscode-high-contrast");
  const failed = (error) => {
    const shown = document.getElementById("diagram-error");
    shown.textContent = `The charts could not be drawn: ${error && error.message ? error.message : error}`;
    shown.hidden = false;
    document.body.dataset.charts = "failed";
  };
  if (typeof mermaid === "undefined") {
    failed("Mermaid did not load");
    return;
  }
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
  mermaid
    .run({ querySelector: "pre.mermaid" })
    .then(() => {
      document.body.dataset.charts = "drawn";
    })
    .catch(failed);
})();
