/* global document, Node */
// A tiny element builder and a replace that keeps keyboard focus: sections are rebuilt when their
// data changes, and a user tabbing through them must not lose their place.

/** h('a', {href, class: 'x', onclick}, child, ...): text children are text nodes, never HTML. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replaces the children of `container`; the element that had focus (by data-key) gets it back. */
export function replaceKeepingFocus(container, children) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.key : undefined;
  container.replaceChildren(...children);
  if (key) {
    const again = [...container.querySelectorAll('[data-key]')].find((el) => el.dataset.key === key);
    if (again) again.focus();
  }
}

/** Fills an organization <select> and keeps what was chosen. */
export function fillOrganizationSelect(select, organizations) {
  const chosen = select.value;
  const first =
    select.dataset.orgSelect === 'required'
      ? []
      : [h('option', { value: '' }, select.options[0]?.textContent ?? 'All')];
  select.replaceChildren(...first, ...organizations.map((o) => h('option', { value: o.id }, o.name)));
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
}
