/* global location, URLSearchParams, CustomEvent */
/*
 * Consulta booking widget (docs/widget.md). Paste:
 *   <script src="https://SITE/embed.js" data-key="pk_live_…" async></script>
 * It frames /embed/… pages of the site that served this file (inline, pop-up or floating button),
 * sizes the frame to its content and re-dispatches the frame's events on the host page as
 * `consulta:*` DOM events (the frame also posts them to this window). No dependencies, no cookies.
 */
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || !script.src) return;
  var base = new URL(script.src).origin;
  var d = script.dataset;
  var LABELS = {
    es: 'Reservar una consulta', en: 'Book a consultation', fr: 'Réserver une consultation',
    ar: 'احجز استشارة', uk: 'Записатися на консультацію', ro: 'Programați o consultație',
  };
  var CLOSE = { es: 'Cerrar', en: 'Close', fr: 'Fermer', ar: 'إغلاق', uk: 'Закрити', ro: 'Închideți' };
  var lang = (d.lang || document.documentElement.lang || '').toLowerCase().split('-')[0];
  if (!LABELS[lang]) lang = 'es';
  var key = d.key || '';
  if (/^svc_/.test(key)) {
    // Never put a secret key in a URL: the frame is told only that one was given.
    console.error('Consulta widget: data-key is a SECRET key (svc_…). It must never be in a page: revoke it and use a publishable key (pk_live_…).');
    key = 'svc_';
  } else if (!/^pk_(live|test)_/.test(key)) {
    console.error('Consulta widget: data-key must be a publishable key (pk_live_… or pk_test_…).');
  }
  var wid = d.id || 'w' + Math.random().toString(36).slice(2, 8);
  var q = new URLSearchParams();
  q.set('k', key);
  q.set('lang', lang);
  q.set('host', location.origin);
  q.set('wid', wid);
  var map = { color: 'c', radius: 'r', city: 'city', practiceArea: 'area', language: 'language' };
  for (var name in map) if (d[name]) q.set(map[name], name === 'color' ? d[name].replace('#', '') : d[name]);
  if (d.remote === 'true') q.set('remote', '1');
  if (d.firm === 'true') q.set('firm', '1');
  if (d.continue === 'top') q.set('continue', 'top');
  var src = base + '/embed/' + (d.lawyer ? 'lawyers/' + encodeURIComponent(d.lawyer) : 'search') + '?' + q.toString();
  var mode = d.mode === 'popup' || d.mode === 'floating' ? d.mode : 'inline';
  var frame = null;

  function makeFrame() {
    var f = document.createElement('iframe');
    f.src = src;
    f.title = LABELS[lang];
    f.style.width = '100%';
    f.style.minWidth = '280px';
    f.style.height = '480px';
    f.style.border = '0';
    f.style.display = 'block';
    f.style.colorScheme = 'normal';
    return f;
  }

  window.addEventListener('message', function (e) {
    if (e.origin !== base || !frame || e.source !== frame.contentWindow) return;
    var m = e.data;
    if (!m || typeof m.type !== 'string' || m.type.indexOf('consulta:') !== 0 || m.widget !== wid) return;
    if (m.type === 'consulta:resized' && m.height > 0) frame.style.height = Math.min(Math.ceil(m.height), 4000) + 'px';
    script.dispatchEvent(new CustomEvent(m.type, { detail: m, bubbles: true }));
  });

  function button(floating) {
    var b = document.createElement('button');
    b.type = 'button';
    b.textContent = d.label || LABELS[lang];
    b.setAttribute('aria-haspopup', 'dialog');
    var s = b.style;
    s.font = 'inherit';
    s.padding = '0.7em 1.2em';
    s.border = '0';
    s.borderRadius = (d.radius || 6) + 'px';
    s.background = d.color ? '#' + d.color.replace('#', '') : '#1d4ed8';
    s.color = '#fff';
    s.cursor = 'pointer';
    if (floating) {
      s.position = 'fixed';
      s.insetBlockEnd = '16px';
      s.insetInlineEnd = '16px';
      s.zIndex = '2147483000';
      s.boxShadow = '0 2px 8px rgba(0,0,0,.3)';
    }
    return b;
  }

  function dialog() {
    var dlg = document.createElement('dialog');
    dlg.setAttribute('aria-label', LABELS[lang]);
    var s = dlg.style;
    s.width = 'min(560px, 100vw - 16px)';
    s.maxHeight = 'calc(100vh - 32px)';
    s.padding = '0';
    s.border = '0';
    s.borderRadius = '8px';
    s.overflow = 'auto';
    var close = document.createElement('button');
    close.type = 'button';
    close.textContent = CLOSE[lang];
    close.style.margin = '8px';
    close.style.font = 'inherit';
    // A finger-sized target whatever the host page's button styles (WCAG 2.5.8).
    close.style.minHeight = '44px';
    close.style.padding = '0.4em 1em';
    close.addEventListener('click', function () { dlg.close(); });
    dlg.appendChild(close);
    return dlg;
  }

  var holder = document.createElement('div');
  holder.className = 'consulta-widget';
  if (lang === 'ar') holder.dir = 'rtl';
  var target = d.target ? document.querySelector(d.target) : null;
  if (target) target.appendChild(holder);
  else script.parentNode.insertBefore(holder, script.nextSibling);

  if (mode === 'inline') {
    frame = makeFrame();
    holder.appendChild(frame);
    return;
  }
  var open = button(mode === 'floating');
  var dlg = dialog();
  holder.appendChild(open);
  holder.appendChild(dlg);
  open.addEventListener('click', function () {
    if (!frame) {
      frame = makeFrame();
      dlg.appendChild(frame);
    }
    dlg.showModal();
  });
})();
