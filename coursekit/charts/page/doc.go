// Package page writes the course's offline HTML pages: ECharts inlined
// once, no network, and the parts in order (a metrics card, figures with
// captions, paragraphs, headings, plain and sortable tables). Every text is
// escaped; `coursekit report`, `coursekit capacity --chart` and the class
// report are written with it.
package page
