// Undo/redo over immutable drawing states: record() the state before each change.

export class History {
  constructor(limit = 500) {
    this.limit = limit;
    this.past = [];
    this.future = [];
  }

  /** Remembers `state` as the one before a change; a new change forgets the redo branch. */
  record(state) {
    this.past.push(state);
    if (this.past.length > this.limit) this.past.shift();
    this.future = [];
  }

  get canUndo() { return this.past.length > 0; }
  get canRedo() { return this.future.length > 0; }

  /** The state before `current`, or null; `current` becomes redoable. */
  undo(current) {
    if (!this.past.length) return null;
    this.future.push(current);
    return this.past.pop();
  }

  /** The state after `current`, or null; `current` becomes undoable. */
  redo(current) {
    if (!this.future.length) return null;
    this.past.push(current);
    return this.future.pop();
  }

  clear() { this.past = []; this.future = []; }
}
