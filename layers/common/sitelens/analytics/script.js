/* Sitelens: pageviews and sitelens.event(name, value, unit). No cookies, no storage,
   no IP in the stats: nothing follows a visitor, so doNotTrack is not consulted.
   Calls made before this script loaded wait in sitelens.q (the snippet in the README). */
(function () {
  var script = document.currentScript;
  var queued = (window.sitelens && window.sitelens.q) || [];
  var ignore = function () {};
  // Automated browsers are not visitors: WebDriver (Selenium, Playwright, Puppeteer),
  // PhantomJS, Nightmare and Cypress mark themselves so.
  var automated = navigator.webdriver || window._phantom || window.callPhantom ||
    window.__nightmare || window.Cypress;
  if (!script || location.protocol === 'file:' || automated) {
    window.sitelens = {event: ignore, q: []};
    return;
  }
  // <base>/js/script.js -> <base>/api/event
  var endpoint = script.src.replace(/\/js\/script\.js([?#].*)?$/, '') + '/api/event';
  var last = null;

  function send(fields) {
    fields.page = location.href;
    // A form body is CORS-safelisted: no preflight.
    var body = new URLSearchParams(fields);
    if (window.Request && 'keepalive' in Request.prototype) {
      // Unlike sendBeacon, fetch can leave cookies out (a same-origin proxy gets them).
      fetch(endpoint, {method: 'POST', body: body, mode: 'no-cors',
        credentials: 'omit', keepalive: true}).catch(ignore);
    } else if (navigator.sendBeacon) {
      navigator.sendBeacon(endpoint, body);
    }
  }

  function pageview() {
    var url = location.href.split('#')[0];
    if (url === last) return; // same URL again, or only the hash changed
    send({referrer: last === null ? document.referrer : last,
      screen_resolution: screen.width + 'x' + screen.height});
    last = url;
  }

  function text(value) {
    return value == null ? '' : String(value);
  }

  function event(name, value, unit) {
    send({'event[name]': text(name), 'event[value]': text(value), 'event[unit]': text(unit)});
  }

  var pushState = history.pushState;
  history.pushState = function () {
    var result = pushState.apply(this, arguments);
    pageview();
    return result;
  };
  addEventListener('popstate', pageview);
  // A page restored from the back/forward cache runs no script again: count it here.
  addEventListener('pageshow', function (shown) {
    if (shown.persisted) {
      last = null;
      pageview();
    }
  });
  window.sitelens = {event: event, q: []};
  pageview();
  for (var i = 0; i < queued.length; i++) event.apply(null, queued[i]);
})();
