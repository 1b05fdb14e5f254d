import type { ArtifactRecord } from './artifacts.ts';

/** DOWNLOAD_PREFIX is where fogbank's own publisher pages live (download pages, admin listing). */
export const DOWNLOAD_PREFIX = '/_fogbank/publisher';

/** DownloadLinks are the absolute addresses of one artifact's page and bytes. */
export interface DownloadLinks {
  readonly page: string;
  readonly file: string;
}

/** downloadLinks are an artifact's addresses on `origin` (`http://host:port`, as the client reached fogbank). */
export function downloadLinks(origin: string, artifact: Pick<ArtifactRecord, 'packageName' | 'id'>): DownloadLinks {
  const page = `${origin}${DOWNLOAD_PREFIX}/apps/test/${encodeURIComponent(artifact.packageName)}/${artifact.id}`;
  return { page, file: `${page}/download` };
}

/**
 * renderDownloadPage is the page an artifact's downloadUrl opens: in place of Play's "install
 * this internal-sharing build" page, it names the app, version, signing certificate and size,
 * and links the bytes.
 */
export function renderDownloadPage(artifact: ArtifactRecord, links: DownloadLinks): string {
  const version = artifact.versionCode === null ? 'not set' : `${artifact.versionCode}${artifact.versionName === null ? '' : ` (${artifact.versionName})`}`;
  const kind = artifact.kind === 'bundle' ? 'Android App Bundle' : 'APK';
  const rows: [string, string][] = [
    ['Package', artifact.packageName],
    ['Version', version],
    ['Type', kind],
    ['Size', `${artifact.size} bytes`],
    ['SHA-256', artifact.sha256],
    ['Certificate', artifact.certificateSubject],
    ['Certificate SHA-256', artifact.certificateFingerprint],
    ['Signed by', artifact.signedBy === 'upload' ? 'the uploader' : 'fogbank (the upload was unsigned)'],
    ['Uploaded', artifact.createTime],
  ];
  const fileName = `${artifact.packageName}-${artifact.versionCode ?? 'unversioned'}.${artifact.kind === 'bundle' ? 'aab' : 'apk'}`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(artifact.packageName)} — internal app sharing</title></head>
<body>
<h1>${escapeHtml(artifact.packageName)}</h1>
<p>Internal app sharing build served by fogbank.</p>
<table>
${rows.map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`).join('\n')}
</table>
<p><a href="${escapeHtml(links.file)}" download="${escapeHtml(fileName)}">Download ${escapeHtml(fileName)}</a></p>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
