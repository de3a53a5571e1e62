// Draws the share page's chart of visitors, visits and pageviews by day with uPlot, from the
// JSON the page carries (#chart-data), and a marker with its text on the day of each of the
// period's annotations; the same numbers and annotations are in the page's table and list.
(function () {
  "use strict";
  var holder = document.getElementById("chart");
  var source = document.getElementById("chart-data");
  if (!holder || !source || typeof uPlot === "undefined") return;
  var series = JSON.parse(source.textContent);
  function instant(day) { return Date.parse(day + "T00:00:00Z") / 1000; }
  var days = series.days.map(instant);
  var annotations = series.annotations || [];
  function width() { return Math.max(holder.clientWidth, 280); }
  function sum(values) { return values.reduce(function (a, b) { return a + b; }, 0); }

  // A dashed line and the annotation's text on its day, in the plot's overlay (DOM nodes, not
  // canvas, so the text is selectable and readable by the tests and assistive technology).
  function markers(u) {
    var old = u.over.querySelectorAll(".u-annotation");
    for (var i = 0; i < old.length; i++) old[i].remove();
    annotations.forEach(function (note) {
      var at = instant(note.bucket.slice(0, 10));
      if (at < u.scales.x.min || at > u.scales.x.max) return;
      var left = Math.round(u.valToPos(at, "x"));
      var mark = document.createElement("div");
      // the text on the line's left in the plot's right half, so it never leaves the plot
      mark.className = left > u.over.clientWidth / 2 ? "u-annotation u-annotation-end" : "u-annotation";
      mark.style.left = left + "px";
      mark.title = note.date + ": " + note.text;
      var text = document.createElement("span");
      text.textContent = note.text;
      mark.appendChild(text);
      u.over.appendChild(mark);
    });
  }

  var options = {
    width: width(),
    height: 300,
    tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); },
    scales: { x: { time: true }, y: { range: function (u, min, max) { return [0, Math.max(max, 1)]; } } },
    series: [
      { label: "Day", value: "{YYYY}-{MM}-{DD}" },
      { label: "Visitors", stroke: "#1d4ed8", width: 2, fill: "rgba(29, 78, 216, 0.08)" },
      { label: "Visits", stroke: "#7c3aed", width: 2 },
      { label: "Pageviews", stroke: "#15803d", width: 2 }
    ],
    axes: [{}, { size: 60 }],
    hooks: { draw: [markers] }
  };
  var chart = new uPlot(options, [days, series.visitors, series.visits, series.pageviews], holder);
  // What was drawn, for whoever checks the page (and its tests).
  holder.dataset.points = String(days.length);
  holder.dataset.visitors = String(sum(series.visitors));
  holder.dataset.visits = String(sum(series.visits));
  holder.dataset.pageviews = String(sum(series.pageviews));
  holder.dataset.annotations = String(holder.querySelectorAll(".u-annotation").length);
  window.sitelensChart = chart;
  window.addEventListener("resize", function () { chart.setSize({ width: width(), height: 300 }); });
})();
