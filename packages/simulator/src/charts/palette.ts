/**
 * How one series is drawn. The styles differ in lightness (so they stay apart in greyscale and for colour
 * blind readers: Okabe-Ito hues) and in dash pattern and marker, so no chart relies on hue alone.
 */
export interface SeriesStyle {
  /** The stroke and fill colour. */
  readonly color: string
  /** A line's dash pattern (`stroke-dasharray`), empty for solid. */
  readonly dash: string
  /** A line's width in px. */
  readonly width: number
  /** Bars: `'solid'` or `'hatch'` (diagonal stripes of the colour on white). */
  readonly fill: 'solid' | 'hatch'
}

export const palette: readonly SeriesStyle[] = [
  { color: '#0b2d5b', dash: '', width: 3, fill: 'solid' }, // deep blue, relative luminance 0.03
  { color: '#d55e00', dash: '7 4', width: 2.5, fill: 'hatch' }, // vermillion, 0.22
  { color: '#56b4e9', dash: '2 3', width: 2.5, fill: 'solid' }, // sky blue, 0.41
  { color: '#7a7a7a', dash: '10 3 2 3', width: 2, fill: 'solid' }, // grey, 0.19 (dash-dot)
]

/** Reference lines (the limit, the capacity) and annotations. */
export const ink = { text: '#1a1a1a', muted: '#555555', grid: '#e3e3e3', axis: '#333333', rule: '#222222' }

/** The style at `index`, cycling. */
export const styleAt = (index: number): SeriesStyle => palette[index % palette.length]!

/** WCAG relative luminance of a `#rrggbb` colour: how light it looks once printed in greyscale. */
export function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
}
