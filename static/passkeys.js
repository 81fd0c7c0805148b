// Passkeys (WebAuthn): a button with data-passkey="create" or "get" runs
// the ceremony. data-options and data-finish name its two endpoints; the
// server's JSON says where to go next. Binary fields travel as base64url.
(function () {
  "use strict";
  function decode(s) {
    var b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    var out = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
    return out.buffer;
  }
  function encode(buf) {
    var bytes = new Uint8Array(buf), s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function csrf() {
    var input = document.querySelector('input[name="_csrf"]');
    return input ? input.value : "";
  }
  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(body || {})
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) throw new Error((j.error && j.error.code) || String(r.status));
        return j;
      });
    });
  }
  function create(button) {
    return post(button.dataset.options).then(function (o) {
      var pk = o.publicKey;
      pk.challenge = decode(pk.challenge);
      pk.user.id = decode(pk.user.id);
      (pk.excludeCredentials || []).forEach(function (c) { c.id = decode(c.id); });
      return navigator.credentials.create({ publicKey: pk });
    }).then(function (cred) {
      var name = document.getElementById("passkey-name");
      return post(button.dataset.finish + "?name=" + encodeURIComponent(name ? name.value : ""), {
        id: cred.id, rawId: encode(cred.rawId), type: cred.type,
        response: {
          attestationObject: encode(cred.response.attestationObject),
          clientDataJSON: encode(cred.response.clientDataJSON),
          transports: cred.response.getTransports ? cred.response.getTransports() : []
        }
      });
    });
  }
  function get(button) {
    return post(button.dataset.options).then(function (o) {
      var pk = o.publicKey;
      pk.challenge = decode(pk.challenge);
      (pk.allowCredentials || []).forEach(function (c) { c.id = decode(c.id); });
      return navigator.credentials.get({ publicKey: pk });
    }).then(function (cred) {
      var next = button.dataset.next ? "?next=" + encodeURIComponent(button.dataset.next) : "";
      return post(button.dataset.finish + next, {
        id: cred.id, rawId: encode(cred.rawId), type: cred.type,
        response: {
          authenticatorData: encode(cred.response.authenticatorData),
          clientDataJSON: encode(cred.response.clientDataJSON),
          signature: encode(cred.response.signature),
          userHandle: cred.response.userHandle ? encode(cred.response.userHandle) : null
        }
      });
    });
  }
  document.addEventListener("click", function (e) {
    var button = e.target.closest("[data-passkey]");
    if (!button) return;
    e.preventDefault();
    var status = document.getElementById("passkey-status");
    if (!window.PublicKeyCredential) {
      if (status) { status.textContent = button.dataset.unsupported; status.hidden = false; }
      return;
    }
    button.disabled = true;
    (button.dataset.passkey === "create" ? create(button) : get(button)).then(function (res) {
      window.location.assign(res.location);
    }).catch(function () {
      button.disabled = false;
      if (status) { status.textContent = button.dataset.failed; status.hidden = false; }
    });
  });
})();
