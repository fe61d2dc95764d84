// The site's icon (docs/protocol.md 15.4): a green rounded square with three lines, the
// lines of a log. Every page names the SVG (`<link rel="icon">`, layout.ts); a browser asks
// for /favicon.ico on its own wherever no page names one (a JSON or text answer opened in a
// tab), so the same drawing is served there as an ICO, 32 by 32, rasterized here from the
// same shapes. Both are built in code: no file to ship, nothing to load from elsewhere.

/** Where the pages link the icon. */
export const FAVICON_SVG_PATH = "/favicon.svg"

const SIZE = 32
const RADIUS = 6
const GREEN = { r: 0x44, g: 0xaa, b: 0x77 } as const
const LINE_WIDTH = 3
/** The log's lines: from (x1, y) to (x2, y), round ends. */
const LINES: ReadonlyArray<readonly [number, number, number]> = [[9, 23, 10], [9, 23, 16], [9, 17, 22]]

export const FAVICON_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}">` +
  `<rect width="${SIZE}" height="${SIZE}" rx="${RADIUS}" fill="#44aa77"/>` +
  `<path d="${LINES.map(([x1, x2, y]) => `M${x1} ${y}H${x2}`).join("")}" stroke="#fff" stroke-width="${LINE_WIDTH}" stroke-linecap="round"/>` +
  `</svg>\n`

/** Whether the point is inside the rounded square. */
const inSquare = (x: number, y: number): boolean => {
  const dx = Math.max(RADIUS - x, 0, x - (SIZE - RADIUS))
  const dy = Math.max(RADIUS - y, 0, y - (SIZE - RADIUS))
  return x >= 0 && x <= SIZE && y >= 0 && y <= SIZE && dx * dx + dy * dy <= RADIUS * RADIUS
}

/** Whether the point is on one of the lines (a segment widened by half the stroke, round ends). */
const onLine = (x: number, y: number): boolean =>
  LINES.some(([x1, x2, ly]) => {
    const dx = x < x1 ? x1 - x : x > x2 ? x - x2 : 0
    const dy = y - ly
    return dx * dx + dy * dy <= (LINE_WIDTH / 2) ** 2
  })

/** Samples per pixel side: the edges are smoothed by coverage. */
const SAMPLES = 4

/** The drawing as rows of BGRA pixels, top row first. */
const pixels = (): Uint8Array => {
  const out = new Uint8Array(SIZE * SIZE * 4)
  for (let py = 0; py < SIZE; py++) {
    for (let px = 0; px < SIZE; px++) {
      let inside = 0
      let white = 0
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const x = px + (sx + 0.5) / SAMPLES
          const y = py + (sy + 0.5) / SAMPLES
          if (!inSquare(x, y)) continue
          inside++
          if (onLine(x, y)) white++
        }
      }
      const at = (py * SIZE + px) * 4
      const mix = (channel: number) => (inside === 0 ? 0 : Math.round((channel * (inside - white) + 255 * white) / inside))
      out[at] = mix(GREEN.b)
      out[at + 1] = mix(GREEN.g)
      out[at + 2] = mix(GREEN.r)
      out[at + 3] = Math.round((255 * inside) / (SAMPLES * SAMPLES))
    }
  }
  return out
}

/**
 * The icon as an ICO file of one 32-bit 32x32 image (a BMP without its file header, as ICO
 * holds them): ICONDIR, one ICONDIRENTRY, BITMAPINFOHEADER (height doubled for the mask),
 * the pixels bottom row first, then the AND mask (all zero: the alpha channel decides).
 */
export const faviconIco = (): Uint8Array => {
  const image = pixels()
  const maskRow = Math.ceil(SIZE / 32) * 4
  const imageBytes = 40 + image.length + maskRow * SIZE
  const bytes = new Uint8Array(6 + 16 + imageBytes)
  const view = new DataView(bytes.buffer)
  view.setUint16(2, 1, true) // type: icon
  view.setUint16(4, 1, true) // one image
  bytes[6] = SIZE
  bytes[7] = SIZE
  view.setUint16(10, 1, true) // planes
  view.setUint16(12, 32, true) // bits per pixel
  view.setUint32(14, imageBytes, true)
  view.setUint32(18, 22, true) // where the image starts
  view.setUint32(22, 40, true) // BITMAPINFOHEADER size
  view.setInt32(26, SIZE, true)
  view.setInt32(30, SIZE * 2, true)
  view.setUint16(34, 1, true)
  view.setUint16(36, 32, true)
  view.setUint32(42, image.length + maskRow * SIZE, true)
  const rowBytes = SIZE * 4
  for (let row = 0; row < SIZE; row++) {
    bytes.set(image.subarray((SIZE - 1 - row) * rowBytes, (SIZE - row) * rowBytes), 62 + row * rowBytes)
  }
  return bytes
}
