/**
 * Reading an app's identity (package, versionCode, versionName) from its AndroidManifest.xml as a
 * bundle carries it: aapt2's protobuf XmlNode (base/manifest/AndroidManifest.xml), decoded with
 * the schema slice in proto/aapt-resources.proto.
 */

import { fromBinary, type MessageShape } from '@bufbuild/protobuf';
import { invalidUpload } from './errors.ts';
import type { XmlAttribute } from './proto/aapt-resources_pb.ts';

/**
 * The generated descriptors load on first use: in the esbuild bundle, evaluating them while the
 * server starts runs before @bufbuild/protobuf's own boot descriptors are initialised (a module
 * cycle inside the library), and it keeps start-up from paying for them.
 */
const schemas = () => import('./proto/aapt-resources_pb.ts');

/** ANDROID_NAMESPACE is the XML namespace of the `android:` attributes. */
export const ANDROID_NAMESPACE = 'http://schemas.android.com/apk/res/android';

/** ManifestInfo is what inspection reads from a manifest. */
export interface ManifestInfo {
  readonly packageName: string;
  /** versionCode, when the manifest sets it (bundles built by AGP always do). */
  readonly versionCode: number | undefined;
  readonly versionName: string | undefined;
}

/** decodeProtoManifest decodes a bundle module's manifest; a 400 naming `entry` when it is not a manifest XmlNode. */
export async function decodeProtoManifest(bytes: Uint8Array, entry: string): Promise<ManifestInfo> {
  const { XmlNodeSchema } = await schemas();
  let node: MessageShape<typeof XmlNodeSchema>;
  try {
    node = fromBinary(XmlNodeSchema, bytes);
  } catch (error) {
    throw invalidUpload(`The bundle's ${entry} is not a valid protocol buffer XmlNode: ${(error as Error).message}.`);
  }
  if (node.node.case !== 'element' || node.node.value.name !== 'manifest') {
    throw invalidUpload(`The bundle's ${entry} does not have a <manifest> root element.`);
  }
  const attributes = node.node.value.attribute;
  const packageName = attributes.find((attribute) => attribute.namespaceUri === '' && attribute.name === 'package')?.value ?? '';
  if (packageName === '') throw invalidUpload(`The bundle's ${entry} has no package attribute.`);
  const versionCode = attributes.find((attribute) => attribute.namespaceUri === ANDROID_NAMESPACE && attribute.name === 'versionCode');
  const versionName = attributes.find((attribute) => attribute.namespaceUri === ANDROID_NAMESPACE && attribute.name === 'versionName');
  return { packageName, versionCode: versionCode === undefined ? undefined : integerOf(versionCode, entry), versionName: versionName?.value || undefined };
}

/** integerOf reads an integer attribute: the compiled primitive when aapt2 compiled it, else its text. */
function integerOf(attribute: XmlAttribute, entry: string): number {
  const prim = attribute.compiledItem?.prim?.oneofValue;
  if (prim?.case === 'intDecimalValue' || prim?.case === 'intHexadecimalValue') return prim.value;
  const text = attribute.value.trim();
  const value = /^0x[0-9a-f]+$/i.test(text) ? Number.parseInt(text, 16) : /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw invalidUpload(`The bundle's ${entry} has an invalid android:${attribute.name} '${attribute.value}'.`);
  return value;
}

/** decodeBundleConfig checks BundleConfig.pb decodes, and returns the bundletool version that built it ('' when unset). */
export async function decodeBundleConfig(bytes: Uint8Array): Promise<string> {
  const { BundleConfigSchema } = await schemas();
  try {
    return fromBinary(BundleConfigSchema, bytes).bundletool?.version ?? '';
  } catch (error) {
    throw invalidUpload(`The bundle's BundleConfig.pb is not a valid BundleConfig protocol buffer: ${(error as Error).message}.`);
  }
}
