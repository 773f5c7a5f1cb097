"""The printable marker sheet: every marker of a layout at true scale, as a PDF.

Each marker is a card to cut out: its black square exactly `size` mm, the white quiet zone
the detector needs around it, a dashed cut line, and a label strip saying its id, where its
centre goes on the table and which edge points up (−y). The first page also carries a
100 mm ruler (and a 4-inch one on Letter paper) to check that the printer kept the scale,
and a placement diagram of the whole layout. 1 mm = 72/25.4 pt throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.pdfgen.canvas import Canvas

from calibration.markers import Marker, MarkerLayout
from domain import InputError

MM = 72 / 25.4  # points per millimetre
PAPERS = {"a4": A4, "letter": LETTER}
# Unprintable border most printers leave, plus room for the cut: mm.
PAGE_MARGIN_MM = 12.0
# Height of the label strip above each marker's quiet zone, and the gap between cards, mm.
LABEL_STRIP_MM = 9.0
CARD_GAP_MM = 4.0
ARROW_MM = 5.0
RULER_MM = 100
RULER_INCHES = 4
# Height of the placement diagram on the first page, mm.
DIAGRAM_HEIGHT_MM = 70.0


class SheetError(InputError):
    """A layout that cannot be printed on the chosen paper."""


@dataclass(frozen=True)
class Card:
    """One marker's cut-out: quiet-zone box plus label strip, sizes in mm."""

    marker: Marker
    quiet: float

    @property
    def width(self) -> float:
        return self.marker.size + 2 * self.quiet

    @property
    def height(self) -> float:
        return self.width + LABEL_STRIP_MM


class _Page:
    """A canvas page addressed in mm from its top-left corner, y downwards."""

    def __init__(self, canvas: Canvas, paper: str):
        self.c = canvas
        self.w_mm, self.h_mm = (v / MM for v in PAPERS[paper])

    def pt(self, x: float, y: float) -> tuple[float, float]:
        return x * MM, (self.h_mm - y) * MM

    def rect(self, x: float, y: float, w: float, h: float, **kw) -> None:
        px, py = self.pt(x, y + h)
        self.c.rect(px, py, w * MM, h * MM, **kw)

    def line(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.c.line(*self.pt(x0, y0), *self.pt(x1, y1))

    def text(self, x: float, y: float, s: str, size: float = 8, centred: bool = False) -> None:
        self.c.setFont("Helvetica", size)
        (self.c.drawCentredString if centred else self.c.drawString)(*self.pt(x, y), s)


def write_sheet(layout: MarkerLayout, path: str, paper: str = "a4") -> int:
    """Writes the sheet to `path`; returns the number of pages."""
    if paper not in PAPERS:
        raise SheetError(f"unknown paper {paper!r} (use {' or '.join(PAPERS)})")
    canvas = Canvas(path, pagesize=PAPERS[paper])
    canvas.setTitle("pyramid-referee marker sheet")
    page = _Page(canvas, paper)
    cards = [Card(m, layout.quiet_zone(m)) for m in layout.markers]
    usable_w, usable_h = page.w_mm - 2 * PAGE_MARGIN_MM, page.h_mm - 2 * PAGE_MARGIN_MM
    for card in cards:
        if card.width > usable_w or card.height > usable_h:
            raise SheetError(f"marker {card.marker.id} ({card.marker.size:g} mm) does not fit on {paper} paper")
    y = _first_page_header(page, layout, paper)
    pages, x, row_h = 1, PAGE_MARGIN_MM, 0.0
    for card in cards:
        if x + card.width > page.w_mm - PAGE_MARGIN_MM:  # next row
            x, y, row_h = PAGE_MARGIN_MM, y + row_h + CARD_GAP_MM, 0.0
        if y + card.height > page.h_mm - PAGE_MARGIN_MM:  # next page
            canvas.showPage()
            pages += 1
            x, y, row_h = PAGE_MARGIN_MM, PAGE_MARGIN_MM, 0.0
        _draw_card(page, layout, card, x, y)
        x += card.width + CARD_GAP_MM
        row_h = max(row_h, card.height)
    canvas.showPage()
    canvas.save()
    return pages


def _first_page_header(page: _Page, layout: MarkerLayout, paper: str) -> float:
    """Title, rulers and placement diagram; returns the y (mm) where the cards may start."""
    x0, y = PAGE_MARGIN_MM, PAGE_MARGIN_MM
    page.text(x0, y + 4, f"pyramid-referee markers ({layout.dictionary}): print at 100% / actual size", 11)
    y += 9
    y = _ruler(page, x0, y, RULER_MM, 1.0, "mm", major_every=10)
    if paper == "letter":
        y = _ruler(page, x0, y, RULER_INCHES * 8, 25.4 / 8, "in", major_every=8)
    return _diagram(page, layout, x0, y + 4, page.w_mm - 2 * PAGE_MARGIN_MM) + CARD_GAP_MM


def _ruler(page: _Page, x0: float, y: float, ticks: int, step_mm: float, unit: str, major_every: int) -> float:
    """A ruler of `ticks` steps of `step_mm`, numbered every `major_every` ticks; returns the y below it."""
    page.c.setLineWidth(0.25)
    base = y + 6
    page.line(x0, base, x0 + ticks * step_mm, base)
    for i in range(ticks + 1):
        major, half = i % major_every == 0, i % (major_every // 2) == 0
        page.line(x0 + i * step_mm, base, x0 + i * step_mm, base - (4 if major else 2.8 if half else 1.8))
        if major:
            page.text(x0 + i * step_mm, base + 3.5, str(i // major_every), 6, centred=True)
    total = f"{RULER_MM} mm" if unit == "mm" else f"{RULER_INCHES} in"
    page.text(x0 + ticks * step_mm + 3, base, f"{unit} ({'cm' if unit == 'mm' else 'inches'}); "
              f"this line must measure {total}", 7)
    return base + 5


def _diagram(page: _Page, layout: MarkerLayout, x0: float, y0: float, width: float) -> float:
    """The layout drawn to scale: where each marker goes, the origin and the axes."""
    bx0, by0, bx1, by1 = layout.bounds()
    bx0, by0 = min(bx0, 0.0), min(by0, 0.0)
    scale = min((width - 20) / (bx1 - bx0), (DIAGRAM_HEIGHT_MM - 14) / (by1 - by0))
    ox, oy = x0 + 6 - bx0 * scale, y0 + 8 - by0 * scale  # page position of table (0, 0)
    page.text(x0, y0 + 2, f"Placement on the table (scale 1:{1 / scale:.0f}); x to the right, "
              "y towards you (down); each marker's top edge towards -y", 7)
    page.c.setLineWidth(0.3)
    page.rect(ox + bx0 * scale, oy + by0 * scale, (bx1 - bx0) * scale, (by1 - by0) * scale, stroke=1, fill=0)
    page.c.setLineWidth(0.8)
    page.line(ox, oy, ox + 15, oy)  # the axes from the origin
    page.line(ox, oy, ox, oy + 15)
    page.c.setLineWidth(0.3)
    page.text(ox + 16, oy + 1, "x", 7)
    page.text(ox - 1, oy + 19, "y", 7)
    page.text(ox - 4, oy - 1, "0", 7)
    for m in layout.markers:
        h = m.size / 2
        page.rect(ox + (m.center[0] - h) * scale, oy + (m.center[1] - h) * scale, m.size * scale, m.size * scale,
                  stroke=0, fill=1)
        page.text(ox + m.center[0] * scale, oy + (m.center[1] + h) * scale + 3,
                  f"{m.id}: ({m.center[0]:g}, {m.center[1]:g})", 6, centred=True)
    return y0 + DIAGRAM_HEIGHT_MM


def _draw_card(page: _Page, layout: MarkerLayout, card: Card, x: float, y: float) -> None:
    """One marker card with its top-left corner at page (x, y) mm."""
    m = card.marker
    c = page.c
    c.setLineWidth(0.3)
    c.setDash(2, 2)
    page.rect(x, y, card.width, card.height, stroke=1, fill=0)  # the cut line
    c.setDash()
    label = f"TOP (-y)   id {m.id}   centre at x {m.center[0]:g}, y {m.center[1]:g} mm"
    room = (card.width - 2 * ARROW_MM - 3) * MM
    size = min(7.0, 7.0 * room / c.stringWidth(label, "Helvetica", 7.0))
    page.text(x + card.width / 2, y + LABEL_STRIP_MM - 3, label, size, centred=True)
    for ax in (x + 1.5, x + card.width - 1.5 - ARROW_MM):  # arrows pointing to the top edge
        _arrow_up(page, ax, y + 1.5)
    _draw_marker(page, layout, m, x + card.quiet, y + LABEL_STRIP_MM + card.quiet)


def _arrow_up(page: _Page, x: float, y: float) -> None:
    """A filled triangle ARROW_MM wide pointing up, top-left of its box at page (x, y) mm."""
    path = page.c.beginPath()
    path.moveTo(*page.pt(x, y + ARROW_MM))
    path.lineTo(*page.pt(x + ARROW_MM, y + ARROW_MM))
    path.lineTo(*page.pt(x + ARROW_MM / 2, y))
    path.close()
    page.c.drawPath(path, stroke=0, fill=1)


def _draw_marker(page: _Page, layout: MarkerLayout, m: Marker, x: float, y: float) -> None:
    """The black square and its bits as one filled path (no seams between cells)."""
    n = layout.modules
    cells = cv2.aruco.generateImageMarker(layout.aruco, m.id, n, borderBits=1)
    cell = m.size / n
    path = page.c.beginPath()
    for r in range(n):
        col = 0
        while col < n:
            if cells[r, col] == 0:  # a run of black cells along the row
                end = col
                while end < n and cells[r, end] == 0:
                    end += 1
                px, py = page.pt(x + col * cell, y + (r + 1) * cell)
                path.rect(px, py, (end - col) * cell * MM, cell * MM)
                col = end
            else:
                col += 1
    page.c.drawPath(path, stroke=0, fill=1)
