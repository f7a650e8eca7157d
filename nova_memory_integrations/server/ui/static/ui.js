// The inspector's only script: sliders, actions and forms. No inline handlers (the CSP forbids them);
// every message is set with textContent, never as HTML.
"use strict";

function notice(text, isError) {
  const el = document.getElementById("notice");
  el.textContent = text;
  el.className = isError ? "notice error" : "notice";
  el.hidden = false;
}

async function send(url, method, body) {
  const response = await fetch(url, {
    method: method,
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : response.status + " " + response.statusText;
    throw new Error(message);
  }
  return data;
}

function label(slider) {
  const out = slider.parentElement.querySelector("output");
  if (out) out.textContent = new Date(Number(slider.value) * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

function setupSliders() {
  document.querySelectorAll("input[type=range][data-param]").forEach(function (slider) {
    slider.addEventListener("input", function () { label(slider); });
    slider.addEventListener("change", function () {
      const url = new URL(window.location.href);
      url.searchParams.set(slider.dataset.param, new Date(Number(slider.value) * 1000).toISOString().replace(".000Z", "Z"));
      window.location.assign(url.toString());
    });
  });
}

function setupActions() {
  document.querySelectorAll("button[data-action]").forEach(function (button) {
    button.addEventListener("click", async function () {
      if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
      button.disabled = true;
      try {
        await send(button.dataset.url, "POST", {ids: [button.dataset.ids]});
        window.location.reload();
      } catch (err) {
        button.disabled = false;
        notice(err.message, true);
      }
    });
  });
}

function setupForms() {
  const login = document.querySelector("form[data-login]");
  if (login) login.addEventListener("submit", async function (event) {
    event.preventDefault();
    try {
      await send("/ui/login", "POST", {key: login.elements.key.value});
      window.location.assign("/ui");
    } catch (err) { notice(err.message, true); }
  });
  const logout = document.querySelector("[data-logout]");
  if (logout) logout.addEventListener("click", async function () {
    try { await send("/ui/logout", "POST", {}); } catch (err) { /* signed out anyway */ }
    window.location.assign("/ui/login");
  });
  const forget = document.querySelector("form[data-forget]");
  if (forget) forget.addEventListener("submit", async function (event) {
    event.preventDefault();
    const typed = forget.elements.confirm.value;
    if (typed !== forget.dataset.user) { notice("Type the user id exactly to confirm.", true); return; }
    if (!window.confirm("Forget every memory of this user? This cannot be undone.")) return;
    try {
      await send(forget.dataset.url, "POST", {confirm: typed});
      window.location.assign("/ui");
    } catch (err) { notice(err.message, true); }
  });
  document.querySelectorAll("form[data-block]").forEach(function (form) {
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      try {
        await send(form.dataset.url, "PUT", {content: form.elements.content.value});
        notice("Saved.", false);
        window.location.reload();
      } catch (err) { notice(err.message, true); }
    });
  });
}

document.addEventListener("DOMContentLoaded", function () {
  setupSliders();
  setupActions();
  setupForms();
});
