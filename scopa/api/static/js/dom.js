// A few lines of DOM building, so rendering reads as the structure it makes.

/** h("button", {class: "card", onclick, style: {"--n": "3"}}, "7♦") */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    // Through the CSSOM, which the Content-Security-Policy allows: a style attribute is
    // inline style, which it refuses.
    else if (key === "style") for (const [name, v] of Object.entries(value)) el.style.setProperty(name, v);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, value);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** Shows the message in the element, or hides it when the message is empty. */
export function say(el, message) {
  el.textContent = message || "";
  el.hidden = !message;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
