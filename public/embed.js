/* Inlay chat embed loader (docs/embedding.md). No framework: a launcher button and an iframe to
   <inlay>/embed/<agent>. The token handshake runs by postMessage, checked against the iframe's
   origin on this side and against this page's origin on the other. */
(function () {
  var script = document.currentScript;
  if (!script || window.__inlayEmbed) return;
  window.__inlayEmbed = true;
  var d = script.dataset;
  var base = new URL(script.src).origin;
  var agent = d.agent || "";
  var color = d.color || "#4f46e5";
  var label = d.label || "Chat with us";
  var side = d.position === "left" ? "left" : "right";
  var config = window.InlayEmbed || {};
  var frame, button, open = false;

  // Each failure says what went wrong; the chat frame shows it, the console tells the developer.
  function getToken() {
    var got;
    if (typeof config.getToken === "function") {
      got = Promise.resolve().then(function () { return config.getToken(); }).catch(function (e) {
        throw new Error("InlayEmbed.getToken() failed: " + ((e && e.message) || e));
      });
    } else if (!d.tokenUrl) {
      return Promise.reject(new Error("the page sets neither data-token-url nor InlayEmbed.getToken"));
    } else {
      got = fetch(d.tokenUrl, {
        method: "POST",
        credentials: "include",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ origin: location.origin, agent: agent, tenant: d.tenant })
      }).then(function (r) {
        if (!r.ok) throw new Error("the token endpoint " + d.tokenUrl + " answered " + r.status);
        return r.json().catch(function () { throw new Error("the token endpoint " + d.tokenUrl + " did not answer JSON"); });
      }).then(function (j) { return j && j.token; }, function (e) {
        throw e instanceof TypeError ? new Error("the token endpoint " + d.tokenUrl + " could not be reached") : e;
      });
    }
    return got.then(function (token) {
      if (typeof token !== "string" || !token) throw new Error("the token endpoint gave no token (expected {\"token\": \"…\"})");
      return token;
    });
  }

  function send(message) {
    if (frame && frame.contentWindow) frame.contentWindow.postMessage(message, base);
  }

  function style(el, css) { for (var k in css) el.style[k] = css[k]; }

  function toggle(show) {
    open = show === undefined ? !open : show;
    if (open && !frame) {
      frame = document.createElement("iframe");
      var q = "?host=" + encodeURIComponent(location.origin) + (d.tenant ? "&tenant=" + encodeURIComponent(d.tenant) : "") + (d.title ? "&title=" + encodeURIComponent(d.title) : "") + "&accent=" + encodeURIComponent(color);
      if (agent) frame.src = base + "/embed/" + encodeURIComponent(agent) + q;
      else {
        // Nothing to open: say so in the panel rather than leave it blank.
        if (window.console) console.error("inlay: the embed script has no data-agent");
        frame.srcdoc = '<p style="font:14px system-ui;padding:24px;text-align:center;color:#374151">This chat has no agent to open. If this is your site, add data-agent="&lt;agent name&gt;" to the embed script (Admin → Embed shows the snippet).</p>';
      }
      frame.title = d.title || label;
      frame.allow = "clipboard-write";
      style(frame, { position: "fixed", bottom: "88px", width: "min(400px, calc(100vw - 32px))", height: "min(640px, calc(100vh - 112px))", border: "0", borderRadius: "16px", boxShadow: "0 12px 40px rgba(0,0,0,.18)", background: "#fff", zIndex: "2147483646", colorScheme: "normal" });
      frame.style[side] = "16px";
      document.body.appendChild(frame);
    }
    if (frame) frame.style.display = open ? "block" : "none";
    button.setAttribute("aria-expanded", String(open));
    button.setAttribute("aria-label", open ? "Close chat" : label);
    button.innerHTML = open ? icons.close : icons.chat;
    if (open && frame) frame.focus();
  }

  var icons = {
    chat: '<svg width="26" height="26" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z"/></svg>',
    close: '<svg width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" aria-hidden="true"><path d="M18 6 6 18M6 6l12 12"/></svg>'
  };

  window.addEventListener("message", function (e) {
    // Only the chat frame, at Inlay's origin, may ask for tokens.
    if (!frame || e.source !== frame.contentWindow || e.origin !== base) return;
    var type = e.data && e.data.type;
    if (type === "inlay:ready" || type === "inlay:token-request") {
      getToken().then(function (token) { send({ type: "inlay:token", token: token }); }, function (e) {
        var reason = String((e && e.message) || e).slice(0, 300);
        if (window.console) console.error("inlay: " + reason);
        send({ type: "inlay:token-error", reason: reason });
      });
    } else if (type === "inlay:close") toggle(false);
  });

  function mount() {
    button = document.createElement("button");
    button.type = "button";
    style(button, { position: "fixed", bottom: "16px", width: "56px", height: "56px", borderRadius: "50%", border: "0", background: color, color: "#fff", boxShadow: "0 6px 20px rgba(0,0,0,.2)", cursor: "pointer", zIndex: "2147483647", display: "grid", placeItems: "center" });
    button.style[side] = "16px";
    button.setAttribute("aria-haspopup", "dialog");
    button.onclick = function () { toggle(); };
    document.addEventListener("keydown", function (e) { if (e.key === "Escape" && open) { toggle(false); button.focus(); } });
    document.body.appendChild(button);
    toggle(d.open === "true");
  }

  window.InlayEmbed = Object.assign(config, { open: function () { toggle(true); }, close: function () { toggle(false); } });
  if (document.body) mount(); else document.addEventListener("DOMContentLoaded", mount);
})();
