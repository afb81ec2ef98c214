// The page checks itself (docs/report.md), for a headless browser's --dump-dom to read:
// body[data-figures] says "ok N" or which figures broke; body[data-legibility] gives the
// narrowest figure as a fraction of the text width and the smallest figure text in CSS px
// at this window's width; script errors land in #script-errors.
var errs = [];
window.onerror = function (msg, src, line) {
  errs.push(msg + " (line " + line + ")");
  document.getElementById("script-errors").textContent = errs.join("\n");
  document.body.setAttribute("data-script-errors", String(errs.length));
};
function drawn(fig) {
  var svg = fig.querySelector("svg");
  return svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width > 0 &&
    svg.getBoundingClientRect().width > 0 && svg.querySelector("text") !== null;
}
function legibility(figs) {
  var main = document.querySelector("main"), text = main.clientWidth, frac = Infinity,
      px = Infinity;
  for (var i = 0; i < figs.length; i++) {
    var svg = figs[i].querySelector("svg"), w = svg.getBoundingClientRect().width;
    var scale = w / svg.viewBox.baseVal.width;  // CSS px per SVG user unit
    frac = Math.min(frac, w / text);
    var texts = svg.querySelectorAll("text");
    for (var j = 0; j < texts.length; j++)
      px = Math.min(px, parseFloat(getComputedStyle(texts[j]).fontSize) * scale);
  }
  return "width " + frac.toFixed(3) + " text " + px.toFixed(1);
}
window.addEventListener("load", function () {
  var figs = document.querySelectorAll("figure.panel"), bad = [], good = [];
  for (var i = 0; i < figs.length; i++)
    (drawn(figs[i]) ? good : bad).push(figs[i]);
  document.body.setAttribute("data-figures", bad.length ? "broken: " + bad.map(
    function (f) { return f.id; }).join("; ") : "ok " + figs.length);
  if (good.length) document.body.setAttribute("data-legibility", legibility(good));
});
