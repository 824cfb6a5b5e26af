/** Edit distance between two short strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = row;
  }
  return prev[b.length] as number;
}

function stem(name: string): string {
  const dot = name.lastIndexOf(".");
  return (dot > 0 ? name.slice(0, dot) : name).toLowerCase();
}

/** Up to `max` names that look like a mistyped `wanted`: same letters in another case, same stem, a small typo. */
export function similarNames(wanted: string, names: readonly string[], max = 3): string[] {
  const target = wanted.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    let score: number | undefined;
    if (lower === target) score = 0;
    else if (stem(name) === stem(wanted)) score = 1;
    else {
      const distance = editDistance(lower, target);
      if (distance <= Math.max(2, Math.floor(target.length / 4))) score = 1 + distance;
      else if (target.length >= 3 && (lower.includes(target) || target.includes(lower))) score = 10;
    }
    if (score !== undefined) scored.push({ name, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((s) => s.name);
}
