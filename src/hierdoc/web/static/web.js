// Keyboard: "/" goes to the search box (or to the search page), Escape leaves a
// focused defined term (closing its definition). Everything else works without script.
document.addEventListener("keydown", function (event) {
  var typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
  if (event.key === "/" && !typing) {
    var box = document.getElementById("q");
    if (box) { box.focus(); box.select(); } else { window.location.href = "/"; }
    event.preventDefault();
  } else if (event.key === "Escape" && document.activeElement.classList.contains("term")) {
    document.activeElement.blur();
  }
});
window.addEventListener("load", function () {
  var point = document.getElementById("point");
  if (point && !window.location.hash) { point.scrollIntoView({block: "center"}); }
});
