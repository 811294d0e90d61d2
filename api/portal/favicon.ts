/**
 * Lore's icon, drawn once: a white L on a rounded square of the portal's accent colour. The portal's
 * pages link it as SVG; /favicon.ico serves it as a 32×32 ICO, for the browsers and pages that ask
 * there (a browser asks wherever a page names no icon, and logs the 404 when there is none).
 */
const SIZE = 32;
const RADIUS = 6;
const ACCENT = [0x0b, 0x5c, 0xad] as const;
/** The letter as rectangles [x, y, width, height] on the 32-unit square. */
const LETTER = [
  [10, 7, 5, 18],
  [10, 20, 13, 5],
] as const;

const hex = (rgb: readonly number[]) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}"><rect width="${SIZE}" height="${SIZE}" rx="${RADIUS}" fill="${hex(ACCENT)}"/>${LETTER.map(
  ([x, y, width, height]) => `<rect x="${x}" y="${y}" width="${width}" height="${height}" fill="#fff"/>`,
).join('')}</svg>\n`;

function inSquare(x: number, y: number): boolean {
  const cx = Math.min(Math.max(x, RADIUS), SIZE - RADIUS);
  const cy = Math.min(Math.max(y, RADIUS), SIZE - RADIUS);
  return (x - cx) ** 2 + (y - cy) ** 2 <= RADIUS ** 2;
}

function inLetter(x: number, y: number): boolean {
  return LETTER.some(([lx, ly, width, height]) => x >= lx && x < lx + width && y >= ly && y < ly + height);
}

/** The icon as an ICO of one 32-bit BMP image, each pixel sampled 4×4 times so the corners are smooth. */
function ico(): Buffer {
  const samples = 4;
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row; // BMP rows go bottom up
    for (let x = 0; x < SIZE; x++) {
      let square = 0;
      let letter = 0;
      for (let i = 0; i < samples * samples; i++) {
        const sx = x + ((i % samples) + 0.5) / samples;
        const sy = y + (Math.floor(i / samples) + 0.5) / samples;
        if (inSquare(sx, sy)) square++;
        if (inLetter(sx, sy)) letter++;
      }
      const mix = (c: number) => (square ? Math.round((letter * 255 + (square - letter) * c) / square) : 0);
      pixels.set([mix(ACCENT[2]), mix(ACCENT[1]), mix(ACCENT[0]), Math.round((square / samples ** 2) * 255)], (row * SIZE + x) * 4);
    }
  }
  // The 1-bit AND mask ICO requires after the pixels: all clear, the alpha channel decides.
  const mask = Buffer.alloc((SIZE / 8) * SIZE);
  const header = Buffer.alloc(6 + 16 + 40);
  header.writeUInt16LE(1, 2); // an icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(40 + pixels.length + mask.length, 14);
  header.writeUInt32LE(22, 18); // where the image starts
  header.writeUInt32LE(40, 22); // BITMAPINFOHEADER
  header.writeInt32LE(SIZE, 26);
  header.writeInt32LE(SIZE * 2, 30); // the pixels' rows and the mask's
  header.writeUInt16LE(1, 34);
  header.writeUInt16LE(32, 36);
  header.writeUInt32LE(pixels.length + mask.length, 42);
  return Buffer.concat([header, pixels, mask]);
}

export const FAVICON_ICO = ico();
