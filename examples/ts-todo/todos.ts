export interface Todo {
  id: number;
  text: string;
  done: boolean;
}

export function render(todos: Todo[]): string {
  if (todos.length === 0) return "No todos.";
  return todos.map((t) => `${t.done ? "[x]" : "[ ]"} #${t.id} ${t.text}`).join("\n");
}
