/* Sitelens: pageviews (with the script tag's data-sitelens-* properties) and
   sitelens.event(name, value, unit) or sitelens.event(name, {props, revenue}). No cookies,
   no storage, no IP in the stats: nothing follows a visitor, so doNotTrack is not consulted.
   Calls made before this script loaded wait in sitelens.q (the snippet in the README).

   The source of the served files, not served itself: `make script` minifies it into
   sitelens/analytics/js/, script.js (the core) and a file for each combination of the
   opt-in extensions (script.outbound-links.file-downloads.js, ...), with each flag below
   true in the files that have its extension and false (its code left out) in the others. */
/* global OUTBOUND_LINKS, FILE_DOWNLOADS, NOT_FOUND, SCROLL_DEPTH, WEB_VITALS */
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
  // <base>/js/script[.<extension>...].js -> <base>
  var base = script.src.replace(/\/js\/script[\w.-]*\.js([?#].*)?$/, '');
  // data-api: hits elsewhere than the script's base (HitPath=FunctionUrl), as Plausible's
  var endpoint = script.getAttribute('data-api') || base + '/api/event';
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

  var keepalive = window.Request && 'keepalive' in Request.prototype;

  // `now`: at once, for what the page's end must not lose (an engagement, a click that
  // leaves); else one after another, so the server sees them in the order they happened.
  // Both outlive the page; a keepalive fetch sends no cookies, a beacon would.
  function send(fields, now) {
    fields.page = fields.page || location.href;
    var body = new URLSearchParams(fields);
    if (keepalive && now) post(body);
    else if (keepalive) sending = sending.then(function () { return post(body); });
    else if (navigator.sendBeacon) navigator.sendBeacon(endpoint, body);
  }

  // This tag's attributes: data-sitelens-<key> are the pageviews' properties, data-auto
  // the extensions asked for by their older names (data-auto="outbound,downloads,404,
  // scroll,vitals"), data-404 says that this page is one
  var pageProps = {};
  var hasProps = false;
  var auto = '';
  var notFound = false;
  var attributes = script.attributes || [];
  for (var a = 0; a < attributes.length; a++) {
    var attribute = attributes[a];
    if (attribute.name.indexOf('data-sitelens-') === 0) {
      pageProps[attribute.name.slice(14)] = attribute.value;
      hasProps = true;
    }
    if (attribute.name === 'data-auto') auto = ',' + attribute.value.split(/[\s,]+/) + ',';
    if (NOT_FOUND && attribute.name === 'data-404') notFound = true;
  }

  // data-auto asking for an extension this file lacks: the file that has the extensions
  // of both is loaded instead, with this tag's attributes (not its integrity, a hash of
  // this file), and this one sends nothing
  var built = [OUTBOUND_LINKS, FILE_DOWNLOADS, NOT_FOUND, SCROLL_DEPTH, WEB_VITALS];
  var asked = 'outbound downloads 404 scroll vitals'.split(' ');
  var names = 'outbound-links file-downloads 404 scroll-depth web-vitals'.split(' ');
  var file = 'script';
  var lacking = false;
  for (var e = 0; e < 5; e++) {
    var wanted = auto.indexOf(',' + asked[e] + ',') >= 0;
    if (wanted && !built[e]) lacking = true;
    if (wanted || built[e]) file += '.' + names[e];
  }
  if (lacking) {
    var instead = document.createElement('script');
    for (a = 0; a < attributes.length; a++) {
      if (attributes[a].name !== 'integrity') {
        instead.setAttribute(attributes[a].name, attributes[a].value);
      }
    }
    instead.nonce = script.nonce; // a CSP nonce is hidden from its attribute once loaded
    instead.src = base + '/js/' + file + '.js';
    document.head.appendChild(instead);
    return;
  }

  var scrolled = 0; // the deepest share of the page seen in this page view, in percent
  var vitalsSent = false;

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
    if (SCROLL_DEPTH) fields.scroll_depth = String(scrolled);
    if (WEB_VITALS && !vitalsSent) vitalsInto(fields);
    engaged = 0;
    send(fields, true);
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
    if (SCROLL_DEPTH) {
      scrolled = 0;
      depth();
    }
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

  // extension: scroll-depth
  function depth() {
    var root = document.documentElement;
    var seen = (window.scrollY + innerHeight) / Math.max(root.scrollHeight, 1);
    scrolled = Math.max(scrolled, Math.min(100, Math.round(seen * 100)));
  }
  if (SCROLL_DEPTH) addEventListener('scroll', depth, {passive: true});

  // extension: web-vitals
  // Core Web Vitals as Google's web-vitals library measures them, sent once per page
  // view with its first engagement: LCP (the last candidate before an input), CLS (the
  // largest session window: shifts under 1 s apart, 5 s at most, none after an input),
  // INP (the slowest interaction, one left out per 50), FCP and TTFB.
  var vitals = {cls: 0};
  var lcpDone = false;
  var slowest = {};
  var windowValue = 0;
  var windowStart = 0;
  var windowLast = 0;
  function observe(type, run, extra) {
    try {
      var options = {type: type, buffered: true, durationThreshold: extra};
      new PerformanceObserver(function (list) { list.getEntries().forEach(run); })
        .observe(options);
    } catch (unsupported) { /* this browser measures less */ }
  }
  function vitalsInto(fields) {
    var times = Object.keys(slowest).map(function (id) { return slowest[id]; })
      .sort(function (a, b) { return b - a; });
    if (times.length) vitals.inp = times[Math.min(times.length - 1, Math.floor(times.length / 50))];
    for (var name in vitals) {
      fields[name] = name === 'cls' ? vitals.cls.toFixed(4) : String(Math.round(vitals[name]));
    }
    vitalsSent = true;
  }
  function interaction(entry) {
    var id = entry.interactionId;
    if (id) slowest[id] = Math.max(slowest[id] || 0, entry.duration);
  }
  if (WEB_VITALS) {
    var navigation = performance.getEntriesByType('navigation')[0];
    var activated = navigation && navigation.activationStart || 0;
    if (navigation) vitals.ttfb = Math.max(navigation.responseStart - activated, 0);
    observe('paint', function (entry) {
      if (entry.name === 'first-contentful-paint') {
        vitals.fcp = Math.max(entry.startTime - activated, 0);
      }
    });
    observe('largest-contentful-paint', function (entry) {
      if (!lcpDone) vitals.lcp = Math.max(entry.startTime - activated, 0);
    });
    ['keydown', 'click', 'pointerdown'].forEach(function (type) {
      addEventListener(type, function () { lcpDone = true; }, true);
    });
    observe('layout-shift', function (entry) {
      if (entry.hadRecentInput) return;
      var joins = windowValue && entry.startTime - windowLast < 1000 &&
        entry.startTime - windowStart < 5000;
      windowValue = joins ? windowValue + entry.value : entry.value;
      if (!joins) windowStart = entry.startTime;
      windowLast = entry.startTime;
      vitals.cls = Math.max(vitals.cls, windowValue);
    });
    observe('event', interaction, 40);
    observe('first-input', interaction);
  }

  // extensions: outbound-links, file-downloads
  // A click on a link to another site, or to a file: sent at once, and the navigation
  // goes on undelayed (nothing waits for the request)
  var files = /\.(pdf|xlsx?|docx?|txt|rtf|csv|exe|key|pp[st]|pptx|7z|pkg|rar|gz|zip|avi|mov|mp4|mpe?g|wmv|midi?|mp3|wav|wma|dmg|iso|msi|apk|epub)$/i;
  function clicked(click) {
    var link = click.target.closest && click.target.closest('a[href]');
    if (!link || !/^https?:$/.test(link.protocol)) return;
    var name = FILE_DOWNLOADS && files.test(link.pathname) ? 'File Download'
      : OUTBOUND_LINKS && link.host !== location.host ? 'Outbound Link: Click' : '';
    var url = link.href.slice(0, 500); // the property's bound
    if (name) send({'event[name]': name, props: JSON.stringify({url: url})}, true);
  }
  if (OUTBOUND_LINKS || FILE_DOWNLOADS) {
    document.addEventListener('click', clicked, true);
    document.addEventListener('auxclick', clicked, true);
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

  // extension: 404
  // A page not found: it says so (data-404 on this tag), or its status was 404
  if (NOT_FOUND) {
    var loaded = performance.getEntriesByType('navigation')[0];
    if (notFound || (loaded && loaded.responseStatus === 404)) {
      event('404', {props: {path: location.pathname}});
    }
  }
  for (var i = 0; i < queued.length; i++) event.apply(null, queued[i]);
})();
