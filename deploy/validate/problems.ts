/** One finding of a validator: the file, where in it when known, and what is wrong. */
export interface Problem {
  source: string;
  where?: string;
  message: string;
}

export function problem(source: string, message: string, where?: string): Problem {
  return where === undefined ? { source, message } : { source, where, message };
}

export function formatProblem(p: Problem): string {
  return `${p.source}${p.where ? ` [${p.where}]` : ''}: ${p.message}`;
}
