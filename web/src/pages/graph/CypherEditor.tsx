import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
  type Completion,
  type CompletionContext,
  type CompletionResult,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, HighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { cypher } from '@codemirror/legacy-modes/mode/cypher';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import { completionSpot, type CompletionKind } from '../../lib/cypher-completion';

export interface CypherEditorHandle {
  setValue(text: string): void;
  focus(): void;
}

interface Props {
  value: string;
  onChange: (text: string) => void;
  /** Ctrl/Cmd-Enter. */
  onRun: () => void;
  /** Labels, relationship types and property keys offered as completions, each where it fits. */
  names: SchemaNames;
  /** The editor's accessible name (the editor lives in a shadow root, so no id reference reaches it). */
  label: string;
}

export interface SchemaNames {
  labels: string[];
  relationshipTypes: string[];
  propertyKeys: string[];
}

/** The completions of each kind of spot (cypher-completion.ts): after `(x:` labels, after `[x:` types, after `.` keys. */
function optionsFor(names: SchemaNames): Record<CompletionKind, Completion[]> {
  const labels = names.labels.map((l) => ({ label: l, type: 'type', detail: 'label' }));
  const types = names.relationshipTypes.map((t) => ({ label: t, type: 'enum', detail: 'relationship type' }));
  const keys = names.propertyKeys.map((k) => ({ label: k, type: 'property', detail: 'property key' }));
  return { label: labels, relationship: types, property: keys, any: [...labels, ...types, ...keys] };
}

function schemaCompletion(names: SchemaNames) {
  const options = optionsFor(names);
  return (ctx: CompletionContext): CompletionResult | null => {
    const line = ctx.state.doc.lineAt(ctx.pos);
    const spot = completionSpot(line.text.slice(0, ctx.pos - line.from), ctx.explicit);
    if (!spot || options[spot.kind].length === 0) return null;
    return { from: line.from + spot.from, options: options[spot.kind], validFor: /^\w*$/ };
  };
}

/** Colours from CSS variables of the page, so the theme follows light and dark. */
const highlight = HighlightStyle.define([
  { tag: t.keyword, color: 'var(--cm-keyword)', fontWeight: '600' },
  { tag: [t.string, t.special(t.string)], color: 'var(--cm-string)' },
  { tag: [t.number, t.bool, t.atom], color: 'var(--cm-number)' },
  { tag: [t.variableName, t.propertyName], color: 'var(--info)' },
  { tag: t.comment, color: 'var(--muted)', fontStyle: 'italic' },
  { tag: [t.operator, t.punctuation, t.bracket], color: 'var(--muted)' },
]);

const theme = EditorView.theme({
  '&': {
    minHeight: '8rem',
    maxHeight: '22rem',
    borderRadius: '8px',
    color: 'var(--text)',
    backgroundColor: 'var(--surface)',
  },
  '&.cm-focused': { outline: '3px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', fontSize: '0.95rem', lineHeight: '1.5' },
  '.cm-content': { caretColor: 'var(--text)', padding: '6px 0' },
  '.cm-placeholder': { color: 'var(--muted)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'var(--accent-soft)' },
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border)' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--on-accent)' },
});

/** A CodeMirror 6 editor for Cypher: highlighting, brackets, history, completion of schema names. */
export const CypherEditor = forwardRef<CypherEditorHandle, Props>(function CypherEditor(
  { value, onChange, onRun, names, label },
  ref,
) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const completions = useRef(new Compartment());
  const callbacks = useRef({ onChange, onRun });
  callbacks.current = { onChange, onRun };

  useEffect(() => {
    // In a shadow root CodeMirror's styles go into a constructed style sheet instead of a <style> element, which a
    // Content-Security-Policy without 'unsafe-inline' for styles would block.
    const root = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: 'open' });
    const v = new EditorView({
      parent: root,
      root,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          closeBrackets(),
          bracketMatching(),
          StreamLanguage.define(cypher),
          syntaxHighlighting(highlight),
          theme,
          completions.current.of(autocompletion({ override: [] })),
          placeholder('MATCH (n) RETURN n LIMIT 25'),
          keymap.of([
            { key: 'Mod-Enter', run: () => (callbacks.current.onRun(), true) },
            ...closeBracketsKeymap,
            ...defaultKeymap,
            ...historyKeymap,
            ...completionKeymap,
          ]),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true' }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) callbacks.current.onChange(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // Created once: the initial `value` seeds it, later changes arrive through the handle (`setValue`).
  }, []);

  useEffect(() => {
    view.current?.dispatch({
      effects: completions.current.reconfigure(
        autocompletion({ override: [schemaCompletion(names)], activateOnTyping: true }),
      ),
    });
  }, [names]);

  useImperativeHandle(ref, () => ({
    setValue(text: string) {
      const v = view.current;
      if (v) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
    },
    focus: () => view.current?.focus(),
  }));

  return <div ref={host} className="cypher-editor" />;
});
