// Passkey ceremonies (WebAuthn) for the pages that carry a [data-passkey] root: adding a passkey,
// signing in with one (a button, and the email field's autofill), and the step-up. The WebAuthn
// calls are @simplewebauthn/browser's (simplewebauthn-browser.js, loaded before this file).
// Every call to the server is a same-origin urlencoded POST carrying the page's CSRF token; the
// browser's answer travels as JSON text in the `response` field.
(function () {
  'use strict';
  var roots = document.querySelectorAll('[data-passkey]');
  if (!roots.length) return;
  var W = window.SimpleWebAuthnBrowser;
  var supported = !!(W && W.browserSupportsWebAuthn());

  function csrf() {
    var field = document.querySelector('input[name="_csrf"]');
    return field ? field.value : '';
  }

  /** POSTs fields; resolves to { ok, status, data } where data is the JSON answer (or {}). */
  function post(url, fields) {
    var body = new window.URLSearchParams(fields || {});
    body.set('_csrf', csrf());
    return window.fetch(url, { method: 'POST', body: body, credentials: 'same-origin', headers: { accept: 'application/json' } }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        return { ok: res.ok, status: res.status, data: data || {} };
      });
    });
  }

  function setup(root) {
    var mode = root.getAttribute('data-passkey');
    var status = root.querySelector('[data-passkey-status]');
    var msg = function (name) { return root.getAttribute('data-msg-' + name) || ''; };
    var say = function (text, bad) {
      if (!status) return;
      status.textContent = text;
      status.classList.toggle('bad', !!bad);
    };
    var returnTo = root.getAttribute('data-return-to') || '';
    var busy = false;

    root.querySelectorAll('[data-passkey-nojs]').forEach(function (el) { el.hidden = true; });
    if (!supported) {
      // The sign-in form needs no excuse: the email code is right there.
      if (mode !== 'sign-in') say(msg('unsupported'), true);
      return;
    }
    root.querySelectorAll('[data-passkey-js]').forEach(function (el) { el.hidden = false; });

    /** Why a step failed, in words: the server's message, or what the browser said. */
    function fail(err) {
      busy = false;
      if (err && err.serverMessage) return say(err.serverMessage, true);
      var name = err && err.name;
      if (name === 'NotAllowedError' || name === 'AbortError') return say(msg('cancelled'), true);
      if (name === 'InvalidStateError') return say(msg('duplicate'), true);
      return say(msg('failed'), true);
    }
    /** The JSON answer, or a rejection carrying the server's message. */
    function expectOk(result) {
      if (result.ok) return result.data;
      var err = new Error('server refused');
      err.serverMessage = result.data && result.data.message;
      throw err;
    }
    function go(data) {
      window.location.assign(data.redirect || window.location.pathname);
    }

    /** An assertion: options from one endpoint, the signed answer to the other. */
    function assert(optionsUrl, verifyUrl, autofill) {
      return post(optionsUrl, {}).then(expectOk).then(function (data) {
        return W.startAuthentication({ optionsJSON: data.options, useBrowserAutofill: !!autofill });
      }).then(function (answer) {
        say(msg('working'));
        return post(verifyUrl, { response: JSON.stringify(answer), return_to: returnTo });
      }).then(expectOk);
    }

    if (mode === 'register') {
      var form = root.querySelector('form');
      if (!form) return;
      form.addEventListener('submit', function (event) {
        event.preventDefault();
        if (busy) return;
        busy = true;
        say(msg('working'));
        var nameField = form.querySelector('input[name="name"]');
        var name = nameField && nameField.value.trim() ? nameField.value.trim() : (nameField && nameField.placeholder) || '';
        post(root.getAttribute('data-options'), {}).then(expectOk).then(function (data) {
          return W.startRegistration({ optionsJSON: data.options });
        }).then(function (answer) {
          return post(root.getAttribute('data-verify'), { response: JSON.stringify(answer), name: name, return_to: returnTo });
        }).then(expectOk).then(function (data) {
          // On the step-up page a new passkey is then asked for at once: registering alone
          // does not count as the confirmation.
          if (root.getAttribute('data-then') === 'step-up') {
            say(msg('working'));
            return assert(root.getAttribute('data-step-up-options'), root.getAttribute('data-step-up')).then(go);
          }
          go(data);
        }).catch(fail);
      });
    }

    if (mode === 'step-up') {
      var stepForm = root.querySelector('form');
      if (!stepForm) return;
      stepForm.addEventListener('submit', function (event) {
        event.preventDefault();
        if (busy) return;
        busy = true;
        say(msg('working'));
        assert(root.getAttribute('data-options'), root.getAttribute('data-verify')).then(go).catch(fail);
      });
    }

    if (mode === 'sign-in') {
      var button = root.querySelector('[data-passkey-start]');
      if (button) {
        button.addEventListener('click', function () {
          if (busy) return;
          busy = true;
          say(msg('working'));
          // Starting a new ceremony cancels the pending autofill one (the library aborts it).
          assert(root.getAttribute('data-options'), root.getAttribute('data-verify')).then(go).catch(fail);
        });
      }
      // Conditional UI: the browser offers passkeys in the email field's autofill.
      if (W.browserSupportsWebAuthnAutofill) {
        W.browserSupportsWebAuthnAutofill().then(function (yes) {
          if (!yes || !document.querySelector('input[autocomplete$="webauthn"]')) return;
          assert(root.getAttribute('data-options'), root.getAttribute('data-verify'), true).then(go).catch(function (err) {
            // Only the server's verdict on a chosen passkey is worth saying. The rest — cancelled
            // because the button started its own ceremony, the person typed their email instead,
            // a browser that refuses this origin — leaves the email form as it was.
            if (!busy && err && err.serverMessage) fail(err);
          });
        });
      }
    }
  }

  roots.forEach(setup);
})();
