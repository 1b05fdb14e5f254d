/** The publisher view: internal-sharing artifacts per package, newest first, live. */
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { formatSize } from './mail.tsx';
import { useLiveRefresh } from './use-live.ts';

interface Artifact {
  readonly id: string;
  readonly kind: string;
  readonly versionCode: number | null;
  readonly versionName: string | null;
  readonly certificateFingerprint: string;
  readonly certificateSubject: string;
  readonly signedBy: string;
  readonly sha256: string;
  readonly size: number;
  readonly createTime: string;
  readonly page: string;
  readonly download: string;
}

const isPublisher = (event: { type: string; kind?: string }): boolean => event.type === 'change' && (event.kind ?? '').startsWith('publisher.');

/** PublisherView lists every package's artifacts. */
export function PublisherView() {
  const [packages, setPackages] = useState<readonly { packageName: string; artifacts: readonly Artifact[] }[] | undefined>(undefined);
  const [problem, setProblem] = useState('');
  const load = (): void => {
    call<{ packages: { packageName: string; artifacts: Artifact[] }[] }>('GET', '/publisher/artifacts').then(
      (answer) => {
        setPackages(answer.packages);
        setProblem('');
      },
      (error: Error) => setProblem(error.message),
    );
  };
  useEffect(load, []);
  useLiveRefresh(isPublisher, load);
  return (
    <div class="publisher">
      <h1>Artifacts</h1>
      {problem !== '' && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {packages?.length === 0 && <p class="empty">No artifacts uploaded yet.</p>}
      {packages?.map((pkg) => (
        <section key={pkg.packageName} class="card" aria-label={`Package ${pkg.packageName}`} data-package={pkg.packageName}>
          <h2>{pkg.packageName}</h2>
          <div class="table-scroll">
            <table class="journal">
              <caption class="visually-hidden">Artifacts of {pkg.packageName}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Uploaded</th>
                  <th scope="col">Version</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Signing certificate (SHA-256)</th>
                  <th scope="col">SHA-256</th>
                  <th scope="col">Size</th>
                  <th scope="col">Download</th>
                </tr>
              </thead>
              <tbody>
                {pkg.artifacts.map((artifact) => (
                  <tr key={artifact.id} data-artifact={artifact.id}>
                    <td>
                      <time dateTime={artifact.createTime}>{new Date(artifact.createTime).toLocaleString()}</time>
                    </td>
                    <td class="version">
                      {artifact.versionCode ?? '—'} ({artifact.versionName ?? '—'})
                    </td>
                    <td>{artifact.kind}</td>
                    <td>
                      <code class="fingerprint">{artifact.certificateFingerprint}</code>
                      <div class="muted">
                        {artifact.certificateSubject} ({artifact.signedBy === 'fogbank' ? 'fogbank re-signed' : 'upload key'})
                      </div>
                    </td>
                    <td>
                      <code class="sha256">{artifact.sha256}</code>
                    </td>
                    <td class="number">{formatSize(artifact.size)}</td>
                    <td>
                      <a href={artifact.download} aria-label={`Download ${pkg.packageName} ${artifact.versionName ?? artifact.id}`}>
                        Download
                      </a>{' '}
                      <a href={artifact.page} aria-label={`Download page of ${pkg.packageName} ${artifact.versionName ?? artifact.id}`}>
                        Page
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </div>
  );
}
