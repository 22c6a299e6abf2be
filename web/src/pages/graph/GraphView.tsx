import cytoscape from 'cytoscape';
import { useEffect, useRef, useState } from 'react';
import type { GraphElements } from '../../lib/graph-elements';
import { nodeCaption } from '../../lib/graph-elements';

interface Props {
  elements: GraphElements;
  /** What the drawing shows, for screen readers (the same data is also given as text by the caller). */
  label: string;
  /** A node was activated (click or tap). */
  onOpen?: (properties: Record<string, unknown>) => void;
  /** The node drawn larger (the page whose neighbourhood is shown). */
  focusId?: string;
}

/** Up to this many nodes, a query result is drawn in layers (breadth-first) rather than force-directed. */
const SMALL_RESULT = 30;

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

/** A node-link drawing of graph elements (cytoscape, force-directed layout). */
export default function GraphView({ elements, label, onOpen, focusId }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const scheme = useColourScheme();
  useEffect(() => {
    if (!container.current) return;
    const labels = [...new Set(elements.nodes.flatMap((n) => n.labels.slice(0, 1)))].sort();
    const colour = (l: string | undefined) => PALETTE[Math.max(0, labels.indexOf(l ?? '')) % PALETTE.length]!;
    const text = cssVar('--text', '#1d2330');
    const muted = cssVar('--muted', '#5d6575');
    const surface = cssVar('--surface', '#ffffff');
    const small = elements.nodes.length <= SMALL_RESULT;
    const cy = cytoscape({
      container: container.current,
      elements: [
        ...elements.nodes.map((n) => ({
          data: {
            id: n.id,
            caption: nodeCaption(n),
            colour: colour(n.labels[0]),
            size: n.id === focusId ? 34 : 22,
            props: n.properties,
          },
        })),
        ...elements.edges.map((e) => ({ data: { id: e.id, source: e.start_node, target: e.end_node, type: e.type } })),
      ],
      style: [
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
          },
        },
      ],
      // A page's neighbourhood is a star: its node in the middle. A small query result reads best in layers along
      // its relationships; a large one starts on a circle and gets a force-directed layout from there (below).
      layout: focusId
        ? {
            name: 'concentric',
            concentric: (n: { id(): string }) => (n.id() === focusId ? 2 : 1),
            levelWidth: () => 1,
            minNodeSpacing: 70,
            animate: false,
            padding: 24,
          }
        : small
          ? { name: 'breadthfirst', directed: true, spacingFactor: 1.1, animate: false, padding: 24 }
          : { name: 'circle', animate: false, padding: 24 },
      // A handful of nodes would otherwise be blown up to fill the box.
      maxZoom: 1.4,
      minZoom: 0.1,
    });
    if (!focusId && !small) {
      cy.layout({
        name: 'cose',
        // From the circle, so the same result is drawn the same way every time.
        randomize: false,
        // Room for the captions, so neither nodes nor labels end up on top of each other.
        nodeDimensionsIncludeLabels: true,
        idealEdgeLength: () => 110,
        nodeRepulsion: () => 9000,
        animate: false,
        padding: 24,
      }).run();
    }
    cy.on('tap', 'node', (evt) => onOpen?.(evt.target.data('props') as Record<string, unknown>));
    return () => cy.destroy();
  }, [elements, onOpen, focusId, scheme]);
  const legend = [...new Set(elements.nodes.flatMap((n) => n.labels.slice(0, 1)))].sort();
  return (
    <div className="graph-view">
      <div
        ref={container}
        className="graph-canvas"
        role="img"
        aria-label={label}
        data-nodes={elements.nodes.length}
        data-edges={elements.edges.length}
      />
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
