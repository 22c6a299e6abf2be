import cytoscape, { type Core, type ElementDefinition, type StylesheetJson } from 'cytoscape';
import { useEffect, useRef, useState } from 'react';
import type { GEdge, GNode, GraphElements } from '../../lib/graph-elements';
import { nodeCaption } from '../../lib/graph-elements';
import './explorer.css';

/** What is selected in the drawing. */
export type Selection = { kind: 'node'; node: GNode } | { kind: 'relationship'; edge: GEdge };

interface Props {
  elements: GraphElements;
  /** What the drawing shows, for screen readers (the same data is also given as text by the caller). */
  label: string;
  /** A node was activated (click or tap) — for drawings where a click opens the node's page. */
  onOpen?: (properties: Record<string, unknown>) => void;
  /** A node or relationship was clicked (null: the background). */
  onSelect?: (selection: Selection | null) => void;
  /** A node was double-clicked. */
  onExpand?: (node: GNode) => void;
  /** The node drawn larger (the page whose neighbourhood is shown). */
  focusId?: string;
}

/** Up to this many nodes, a query result is drawn in layers (breadth-first) rather than force-directed. */
const SMALL_RESULT = 30;
/** Above this many nodes the view moves as a bitmap while panning and zooming. */
const TEXTURE_ABOVE = 100;
const ZOOM_STEP = 1.25;
const MIN_ZOOM = 0.05;
const MAX_ZOOM = 4;
/** Fitting never blows a handful of nodes up beyond this zoom. */
const FIT_MAX_ZOOM = 1.4;

const PALETTE = ['#4c72b0', '#dd8452', '#55a868', '#c44e52', '#8172b3', '#937860', '#da8bc3', '#8c8c8c'];

const cssVar = (name: string, fallback: string): string =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/** Redraws with the theme's colours when the system switches between light and dark. */
function useColourScheme(): 'light' | 'dark' {
  const [scheme, setScheme] = useState<'light' | 'dark'>(() =>
    window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
  );
  useEffect(() => {
    const mq = window.matchMedia('(prefers-color-scheme: dark)');
    const on = () => setScheme(mq.matches ? 'dark' : 'light');
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return scheme;
}

const legendOf = (elements: GraphElements): string[] =>
  [...new Set(elements.nodes.flatMap((n) => n.labels.slice(0, 1)))].sort();

function styleOf(): StylesheetJson {
  const text = cssVar('--text', '#1d2330');
  const muted = cssVar('--muted', '#5d6575');
  const surface = cssVar('--surface', '#ffffff');
  const focus = cssVar('--focus', '#d97706');
  return [
    {
      selector: 'node',
      style: {
        'background-color': 'data(colour)',
        label: 'data(caption)',
        width: 'data(size)',
        height: 'data(size)',
        color: text,
        'font-size': 11,
        'text-valign': 'bottom',
        'text-margin-y': 4,
        'text-wrap': 'ellipsis',
        'text-max-width': '140px',
        'text-outline-color': surface,
        'text-outline-width': 2,
        // Captions too small to read are not drawn (a zoomed-out large result stays fluent).
        'min-zoomed-font-size': 6,
      },
    },
    {
      selector: 'edge',
      style: {
        width: 1.4,
        'line-color': muted,
        'target-arrow-color': muted,
        'target-arrow-shape': 'triangle',
        'curve-style': 'bezier',
        label: 'data(type)',
        'font-size': 9,
        color: muted,
        'text-rotation': 'autorotate',
        'text-background-color': surface,
        'text-background-opacity': 1,
        'text-background-padding': '2px',
        'min-zoomed-font-size': 6,
      },
    },
    {
      selector: ':selected',
      style: { 'border-width': 3, 'border-color': focus, 'line-color': focus, 'target-arrow-color': focus },
    },
  ];
}

/** cytoscape elements of `elements`, node colours by first label. */
function definitionsOf(elements: GraphElements, focusId: string | undefined): ElementDefinition[] {
  const labels = legendOf(elements);
  const colour = (l: string | undefined) => PALETTE[Math.max(0, labels.indexOf(l ?? '')) % PALETTE.length]!;
  return [
    ...elements.nodes.map((n) => ({
      group: 'nodes' as const,
      data: { id: n.id, caption: nodeCaption(n), colour: colour(n.labels[0]), size: n.id === focusId ? 34 : 22, n },
    })),
    ...elements.edges.map((e) => ({
      group: 'edges' as const,
      data: { id: e.id, source: e.start_node, target: e.end_node, type: e.type, e },
    })),
  ];
}

/** Lays out the whole drawing: a star around `focusId`, layers for a small result, force-directed for a large one. */
function layoutAll(cy: Core, focusId: string | undefined): void {
  const small = cy.nodes().length <= SMALL_RESULT;
  const fit = { animate: false, padding: 24 };
  if (focusId) {
    cy.layout({
      name: 'concentric',
      concentric: (n: { id(): string }) => (n.id() === focusId ? 2 : 1),
      levelWidth: () => 1,
      minNodeSpacing: 70,
      ...fit,
    }).run();
  } else if (small) {
    cy.layout({ name: 'breadthfirst', directed: true, spacingFactor: 1.1, ...fit }).run();
  } else {
    // From a circle, so the same result is drawn the same way every time; room for the captions, so neither nodes
    // nor labels end up on top of each other.
    cy.layout({ name: 'circle', ...fit }).run();
    cy.layout({
      name: 'cose',
      randomize: false,
      nodeDimensionsIncludeLabels: true,
      idealEdgeLength: () => 110,
      nodeRepulsion: () => 9000,
      ...fit,
    }).run();
  }
  fitView(cy);
}

function fitView(cy: Core): void {
  cy.fit(undefined, 24);
  if (cy.zoom() > FIT_MAX_ZOOM) {
    cy.zoom(FIT_MAX_ZOOM);
    cy.center();
  }
}

/**
 * Adds what `elements` holds beyond the drawing, each new node on a ring around the drawn node it is linked to (an
 * expansion), so what was drawn stays where the reader left it; removes what `elements` no longer holds.
 */
function update(cy: Core, elements: GraphElements, focusId: string | undefined): void {
  const wanted = new Set([...elements.nodes.map((n) => n.id), ...elements.edges.map((e) => e.id)]);
  cy.elements()
    .filter((el) => !wanted.has(el.id()))
    .remove();
  const fresh = definitionsOf(elements, focusId).filter((d) => cy.getElementById(d.data.id!).empty());
  if (fresh.length === 0) return;
  const added = cy.add(fresh);
  const byAnchor = new Map<string, cytoscape.NodeSingular[]>();
  added.nodes().forEach((n) => {
    const anchor = n.neighborhood('node').filter((m) => !added.contains(m))[0];
    const key = anchor ? anchor.id() : '';
    byAnchor.set(key, [...(byAnchor.get(key) ?? []), n]);
  });
  for (const [anchorId, nodes] of byAnchor) {
    const centre = anchorId ? cy.getElementById(anchorId).position() : { x: 0, y: 0 };
    const radius = 90 + nodes.length * 6;
    nodes.forEach((n, i) => {
      const angle = (2 * Math.PI * i) / nodes.length;
      n.position({ x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) });
    });
  }
  // Recoloured by the labels the drawing now holds.
  definitionsOf(elements, focusId).forEach((d) => {
    if (d.group === 'nodes') cy.getElementById(d.data.id!).data('colour', d.data['colour']);
  });
}

/** A node-link drawing of graph elements (cytoscape) with pan (drag), zoom (wheel, buttons) and fit. */
export default function GraphView({ elements, label, onOpen, onSelect, onExpand, focusId }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const cyRef = useRef<Core | null>(null);
  const zoomText = useRef<HTMLSpanElement>(null);
  /** Whether the view is as Fit left it: then a resized box (window, narrow screen) is fitted again. */
  const fitted = useRef(true);
  const scheme = useColourScheme();
  const callbacks = useRef({ onOpen, onSelect, onExpand });
  callbacks.current = { onOpen, onSelect, onExpand };

  // One drawing per mount: later results and expansions are added to it (update), so the reader's view stays.
  useEffect(() => {
    const cy = cytoscape({
      container: container.current!,
      style: styleOf(),
      minZoom: MIN_ZOOM,
      maxZoom: MAX_ZOOM,
      wheelSensitivity: 0.3,
      boxSelectionEnabled: false,
      // A large drawing is panned and zoomed as one bitmap and redrawn sharp when the view rests: fluent at hundreds
      // of nodes (bench/explorer.bench.ts).
      textureOnViewport: elements.nodes.length > TEXTURE_ABOVE,
    });
    cyRef.current = cy;
    // The view is shown without a React render per frame: panning and zooming must stay fluent.
    const showView = (): void => {
      const { x, y } = cy.pan();
      container.current!.dataset['zoom'] = cy.zoom().toFixed(3);
      container.current!.dataset['pan'] = `${Math.round(x)},${Math.round(y)}`;
      zoomText.current!.textContent = `${Math.round(cy.zoom() * 100)}%`;
    };
    cy.on('viewport', showView);
    cy.on('dragpan scrollzoom pinchzoom', () => (fitted.current = false));
    const resized = new ResizeObserver(() => {
      cy.resize();
      if (fitted.current && cy.elements().nonempty()) fitView(cy);
    });
    resized.observe(container.current!);
    cy.on('tap', 'node', (evt) => {
      callbacks.current.onOpen?.((evt.target.data('n') as GNode).properties);
      callbacks.current.onSelect?.({ kind: 'node', node: evt.target.data('n') as GNode });
    });
    cy.on('tap', 'edge', (evt) =>
      callbacks.current.onSelect?.({ kind: 'relationship', edge: evt.target.data('e') as GEdge }),
    );
    cy.on('tap', (evt) => {
      if (evt.target === cy) callbacks.current.onSelect?.(null);
    });
    cy.on('dbltap', 'node', (evt) => callbacks.current.onExpand?.(evt.target.data('n') as GNode));
    return () => {
      resized.disconnect();
      cyRef.current = null;
      cy.destroy();
    };
    // Created once per mount (the first elements decide the texture mode); later elements arrive through `update`.
  }, []);

  useEffect(() => {
    const cy = cyRef.current!;
    const first = cy.elements().empty();
    cy.batch(() => update(cy, elements, focusId));
    if (first) {
      layoutAll(cy, focusId);
      fitted.current = true;
    }
  }, [elements, focusId]);

  useEffect(() => {
    cyRef.current?.style(styleOf());
  }, [scheme]);

  const zoomBy = (factor: number) => {
    const cy = cyRef.current;
    if (!cy) return;
    fitted.current = false;
    const level = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, cy.zoom() * factor));
    cy.zoom({ level, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
  };
  const legend = legendOf(elements);
  return (
    <div className="graph-view">
      <div className="graph-stage">
        <div
          ref={container}
          className="graph-canvas"
          role="img"
          aria-label={label}
          data-nodes={elements.nodes.length}
          data-edges={elements.edges.length}
        />
        <div className="graph-controls" role="group" aria-label="Drawing view">
          <button type="button" className="graph-control" aria-label="Zoom in" onClick={() => zoomBy(ZOOM_STEP)}>
            +
          </button>
          <button type="button" className="graph-control" aria-label="Zoom out" onClick={() => zoomBy(1 / ZOOM_STEP)}>
            −
          </button>
          <button
            type="button"
            className="graph-control"
            aria-label="Fit the drawing to the view"
            onClick={() => {
              if (!cyRef.current) return;
              fitView(cyRef.current);
              fitted.current = true;
            }}
          >
            Fit
          </button>
          <span ref={zoomText} className="graph-zoom">
            100%
          </span>
        </div>
      </div>
      <ul className="graph-legend" aria-label="Node colours">
        {legend.map((l, i) => (
          <li key={l}>
            <span className="swatch" style={{ background: PALETTE[i % PALETTE.length] }} aria-hidden="true" />
            {l}
          </li>
        ))}
      </ul>
    </div>
  );
}
