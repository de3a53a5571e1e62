// Draws the share page's chart of visitors and pageviews by day with uPlot, from the JSON
// the page carries (#chart-data); the same numbers are in the page's table.
(function () {
  "use strict";
  var holder = document.getElementById("chart");
  var source = document.getElementById("chart-data");
  if (!holder || !source || typeof uPlot === "undefined") return;
  var series = JSON.parse(source.textContent);
  var days = series.days.map(function (day) { return Date.parse(day + "T00:00:00Z") / 1000; });
  function width() { return Math.max(holder.clientWidth, 280); }
  var options = {
    width: width(),
    height: 300,
    tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); },
    scales: { x: { time: true }, y: { range: function (u, min, max) { return [0, Math.max(max, 1)]; } } },
    series: [
      { label: "Day", value: "{YYYY}-{MM}-{DD}" },
      { label: "Visitors", stroke: "#1d4ed8", width: 2, fill: "rgba(29, 78, 216, 0.08)" },
      { label: "Pageviews", stroke: "#15803d", width: 2 }
    ],
    axes: [{}, { size: 60 }]
  };
  var chart = new uPlot(options, [days, series.visitors, series.pageviews], holder);
  // What was drawn, for whoever checks the page (and its tests).
  holder.dataset.points = String(days.length);
  holder.dataset.visitors = String(series.visitors.reduce(function (a, b) { return a + b; }, 0));
  holder.dataset.pageviews = String(series.pageviews.reduce(function (a, b) { return a + b; }, 0));
  window.sitelensChart = chart;
  window.addEventListener("resize", function () { chart.setSize({ width: width(), height: 300 }); });
})();
