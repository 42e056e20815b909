/**
 * A lawyer's photo as it is stored and served (issue 25, item 3): whatever she uploads is
 * re-encoded by sharp (libvips, maintained) to one fixed square JPEG, with its metadata (EXIF
 * location, camera, ICC profile, comments) dropped. The upload's dimensions are read from its
 * header before anything is decoded, and an image over PHOTO_MAX_PIXELS is refused: a 2 MB PNG
 * can declare 60,000 × 60,000 pixels, 14 GB once decoded — by us, or by every visitor's browser
 * on her public profile when we served the bytes as given. sharp's work runs on libuv's thread
 * pool, never on the serving thread (docs/security.md#untrusted-input-that-costs-cpu-issue-25).
 */
import sharp from 'sharp';

/** The most pixels an upload may have (a 48-megapixel phone photo is under 2 MB only rarely). */
export const PHOTO_MAX_PIXELS = 40_000_000;
/** Every stored photo is this many pixels square (the profile shows at most 160 CSS px, 3× for dense screens). */
export const PHOTO_SIDE = 512;

export type PhotoProblem = 'not_image' | 'too_many_pixels';

export class PhotoRefusedError extends Error {
  constructor(
    readonly problem: PhotoProblem,
    detail: string,
  ) {
    super(detail);
    this.name = 'PhotoRefusedError';
  }
}

/** The photo to store: a PHOTO_SIDE square JPEG without metadata, or PhotoRefusedError. */
export async function reencodePhoto(bytes: Uint8Array): Promise<{ bytes: Buffer; contentType: 'image/jpeg' }> {
  let width: number | undefined;
  let height: number | undefined;
  let format: string | undefined;
  try {
    // Reads the header only: nothing is decoded yet (so no pixel limit here: the one below says why).
    ({ width, height, format } = await sharp(bytes, { limitInputPixels: false }).metadata());
  } catch {
    throw new PhotoRefusedError('not_image', 'the file is not an image sharp can read');
  }
  if (!width || !height || !format || !['jpeg', 'png', 'webp'].includes(format)) throw new PhotoRefusedError('not_image', 'a photo must be a JPEG, PNG or WebP image');
  if (width * height > PHOTO_MAX_PIXELS) throw new PhotoRefusedError('too_many_pixels', `${width} × ${height} pixels (at most ${PHOTO_MAX_PIXELS / 1_000_000} megapixels)`);
  try {
    const out = await sharp(bytes, { limitInputPixels: PHOTO_MAX_PIXELS, failOn: 'error' })
      // Turned upright by its EXIF orientation first: the orientation goes with the metadata.
      .rotate()
      .resize(PHOTO_SIDE, PHOTO_SIDE, { fit: 'cover', position: 'attention' })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 82, mozjpeg: true })
      .toBuffer();
    return { bytes: out, contentType: 'image/jpeg' };
  } catch (err) {
    throw new PhotoRefusedError('not_image', `the image could not be read: ${(err as Error).message}`.slice(0, 200));
  }
}
