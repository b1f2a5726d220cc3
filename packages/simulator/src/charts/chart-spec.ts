/** One data series: `'line'` joins the points, `'step'` holds each value until the next x, `'bars'` per x. */
export interface ChartSeries {
  readonly label: string
  readonly kind: 'line' | 'step' | 'bars'
  readonly x: ArrayLike<number>
  readonly y: ArrayLike<number>
  /** Index into the palette (default: the series' position in the chart). */
  readonly style?: number
  /** Bars: their width in x units (default: the gap between the first two x values). */
  readonly barWidth?: number
}

/** A horizontal reference line: the limit, the capacity. */
export interface ChartRule {
  readonly y: number
  readonly label: string
}

/** A text note pinned to a data point. */
export interface ChartNote {
  readonly x: number
  readonly y: number
  readonly text: string
  /** @default 'start' */
  readonly anchor?: 'start' | 'middle' | 'end'
}

/** One plot area with its own y axis; the panels of a chart share the x axis. */
export interface ChartPanel {
  /** A heading drawn over the panel. */
  readonly title?: string
  /** The y axis: its label with the unit, and its range (default 0 to a round number above the data). */
  readonly y: { readonly label: string; readonly min?: number; readonly max?: number }
  /** @default 190 */
  readonly height?: number
  readonly series: readonly ChartSeries[]
  readonly rules?: readonly ChartRule[]
  readonly notes?: readonly ChartNote[]
  /** Stack the bar series on one another (they must share x values). */
  readonly stacked?: boolean
}

/** A chart: a title, a shared x axis, one or more panels. */
export interface ChartSpec {
  readonly title: string
  readonly subtitle?: string
  /** A prefix for the ids inside the SVG, unique per page when several charts are inlined. @default 'chart' */
  readonly id?: string
  /** @default 760 */
  readonly width?: number
  /** The x axis: its label with the unit, its range, and labelled vertical marks (window boundaries). */
  readonly x: {
    readonly label: string
    readonly min: number
    readonly max: number
    readonly marks?: readonly { readonly x: number; readonly label: string }[]
  }
  readonly panels: readonly ChartPanel[]
}
