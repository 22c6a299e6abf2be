import { useMutation, useQuery } from '@tanstack/react-query';
import { fetchImagesZip, saveBlob } from '../../api/papers';
import { q } from '../../api/queries';
import type { Figure, FigureImage } from '../../api/types';
import { AuthImage } from '../../components/AuthImage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { fmtNumber } from '../../lib/format';

/** An image's text alternative: the figure it belongs to (the caption itself is the figure's visible caption). */
function altText(figure: Figure, image: FigureImage, index: number): string {
  const name = figure.fig_no > 0 ? `Figure ${figure.fig_no}` : `Figure “${image.name}”`;
  return figure.images.length > 1 ? `${name}, part ${index + 1} of ${figure.images.length}` : name;
}

function FigureCard({ figure }: { figure: Figure }) {
  return (
    <li>
      <figure className="gallery-figure">
        <div className="gallery-images">
          {figure.images.map((image, i) => (
            <AuthImage key={image.name} src={image.url} alt={altText(figure, image, i)} className="gallery-image" />
          ))}
        </div>
        <figcaption>
          {figure.caption ? (
            figure.caption
          ) : (
            <span className="muted">{figure.context ? `No caption. Near: “${figure.context}”` : 'No caption.'}</span>
          )}
        </figcaption>
      </figure>
    </li>
  );
}

/**
 * A paper's figures as the server reads them from its markdown (CONTRACT §18.2 `figures`): each figure's images
 * with its caption, then the stored images no figure shows, and the whole set as one zip.
 */
export function FiguresGallery({ id }: { id: string }) {
  const figures = useQuery(q.figures(id));
  const d = figures.data;
  const zip = useMutation({
    mutationFn: () => fetchImagesZip(id),
    // Named after the version whose images these are (the figures' canonical id, `/` as `_` as in stems).
    onSuccess: (blob) => saveBlob(blob, `${(d?.preprint_id ?? id).replace(/\//g, '_')}-images.zip`),
  });
  return (
    <section className="card" aria-labelledby="figures-title">
      <div className="section-head">
        <h2 id="figures-title">Figures{d && d.figures.length > 0 ? ` (${fmtNumber(d.figures.length)})` : ''}</h2>
        {d && d.image_count > 0 && (
          <button type="button" className="button button-small" onClick={() => zip.mutate()} disabled={zip.isPending}>
            Download all {fmtNumber(d.image_count)} images (zip)
          </button>
        )}
      </div>
      {figures.isPending && <Loading label="Loading the figures…" />}
      {figures.isError && <ErrorMessage error={figures.error} title="The figures could not be listed" />}
      {zip.isError && <ErrorMessage error={zip.error} title="The images could not be downloaded" />}
      {d && !d.markdown_ready && (
        <p className="muted">No markdown is stored for this paper, so its figures are unknown.</p>
      )}
      {d && d.markdown_ready && d.figures.length === 0 && <p className="muted">The markdown shows no figures.</p>}
      {d && d.figures.length > 0 && (
        <ul className="gallery" aria-label="Figures">
          {d.figures.map((f, i) => (
            <FigureCard key={`${f.fig_no}-${i}`} figure={f} />
          ))}
        </ul>
      )}
      {d && d.unmatched_images.length > 0 && (
        <>
          <h3 className="gallery-heading">Other images</h3>
          <ul className="gallery" aria-label="Other images">
            {d.unmatched_images.map((image) => (
              <li key={image.name}>
                <figure className="gallery-figure">
                  <div className="gallery-images">
                    <AuthImage src={image.url} alt={`Image “${image.name}”`} className="gallery-image" />
                  </div>
                  <figcaption className="mono small">{image.name}</figcaption>
                </figure>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
