// Numbers and dates as a person reads them.

export function bytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function dateTime(iso) {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function time(iso) {
  return iso ? iso.slice(11, 19) : '—';
}

export function shape(s) {
  return Array.isArray(s) ? s.join(' × ') : '—';
}
