/* Sitelens: pageviews (with the script tag's data-sitelens-* properties) and
   sitelens.event(name, value, unit) or sitelens.event(name, {props, revenue}). No cookies,
   no storage, no IP in the stats: nothing follows a visitor, so doNotTrack is not consulted.
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
  var sending = Promise.resolve();

  function post(body, again) {
    // A form body is CORS-safelisted: no preflight, and the answer is readable. Unlike
    // sendBeacon, fetch can leave cookies out (a same-origin proxy gets them). A hit
    // refused for now (429) is sent once more after its Retry-After, 5 s at most.
    return fetch(endpoint, {method: 'POST', body: body, credentials: 'omit',
      keepalive: true}).then(function (answer) {
      if (answer.status !== 429 || again) return;
      var wait = Math.min(Number(answer.headers.get('Retry-After')) || 1, 5);
      return new Promise(function (done) { setTimeout(done, wait * 1000); })
        .then(function () { return post(body, true); });
    }).catch(ignore);
  }

  function send(fields) {
    fields.page = fields.page || location.href;
    var body = new URLSearchParams(fields);
    if (window.Request && 'keepalive' in Request.prototype) {
      // One after another, so the server sees them in the order they happened.
      sending = sending.then(function () { return post(body); });
    } else if (navigator.sendBeacon) {
      navigator.sendBeacon(endpoint, body);
    }
  }

  // Time on the page: visible time since its pageview, sent as an engagement when the
  // page is hidden or left (or another page of a single-page app is shown), so visits
  // have a real duration.
  var visibleSince = document.visibilityState === 'visible' ? Date.now() : null;
  var engaged = 0;

  function engagement(stopping) {
    if (visibleSince !== null) engaged += Date.now() - visibleSince;
    // Stopped by hiding or leaving (whichever fires first): the other then adds nothing.
    visibleSince = stopping || document.visibilityState !== 'visible' ? null : Date.now();
    if (last === null || engaged < 1) return;
    var fields = {page: last, engagement_ms: String(Math.round(engaged))};
    engaged = 0;
    var body = new URLSearchParams(fields);
    // Both outlive the page; a keepalive fetch sends no cookies, a beacon would.
    if (window.Request && 'keepalive' in Request.prototype) post(body);
    else if (navigator.sendBeacon) navigator.sendBeacon(endpoint, body);
  }

  function pageview() {
    var url = location.href.split('#')[0];
    if (url === last) return; // same URL again, or only the hash changed
    if (last !== null) engagement(false);
    engaged = 0;
    visibleSince = document.visibilityState === 'visible' ? Date.now() : null;
    var fields = {referrer: last === null ? document.referrer : last,
      screen_resolution: screen.width + 'x' + screen.height};
    if (hasProps) fields.props = JSON.stringify(pageProps);
    send(fields);
    last = url;
  }

  function text(value) {
    return value == null ? '' : String(value);
  }

  // sitelens.event(name, value, unit), or sitelens.event(name, {props, revenue})
  function event(name, value, unit) {
    var options = value && typeof value === 'object' ? value : null;
    var fields = {'event[name]': text(name)};
    if (options) {
      if (options.props) fields.props = JSON.stringify(options.props);
      if (options.revenue) {
        fields['revenue[amount]'] = text(options.revenue.amount);
        fields['revenue[currency]'] = text(options.revenue.currency);
      }
    } else {
      fields['event[value]'] = text(value);
      fields['event[unit]'] = text(unit);
    }
    send(fields);
  }

  // A pageview's properties: the script tag's data-sitelens-<key> attributes
  var pageProps = {};
  var hasProps = false;
  for (var a = 0; a < script.attributes.length; a++) {
    var attribute = script.attributes[a];
    if (attribute.name.indexOf('data-sitelens-') === 0) {
      pageProps[attribute.name.slice(14)] = attribute.value;
      hasProps = true;
    }
  }

  var pushState = history.pushState;
  history.pushState = function () {
    var result = pushState.apply(this, arguments);
    pageview();
    return result;
  };
  addEventListener('popstate', pageview);
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') engagement(true);
    else visibleSince = Date.now();
  });
  addEventListener('pagehide', function () { engagement(true); });
  // A page restored from the back/forward cache runs no script again: count it here.
  addEventListener('pageshow', function (shown) {
    if (shown.persisted) {
      last = null;
      engaged = 0;
      pageview();
    }
  });
  window.sitelens = {event: event, q: []};
  pageview();
  for (var i = 0; i < queued.length; i++) event.apply(null, queued[i]);
})();
