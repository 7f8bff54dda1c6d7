/** The values a concrete path gives the parameters of its template (`/api/v1/predict/{prediction_id}`). */
export function pathParams(template: string, concrete: string): Record<string, string> {
  const names: string[] = [];
  const pattern = template
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{([^}]+)\\?\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
  const found = new RegExp(`^${pattern}$`).exec(concrete);
  if (!found) throw new Error(`${concrete} does not fit the path template ${template}`);
  return Object.fromEntries(names.map((name, i) => [name, safeDecode(found[i + 1])]));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
