#pragma once
// A frame that shows where the keyboard is: the document and summary panes and their lists
// draw a border in the highlight colour while they have focus (the style's own focus cue on
// these scroll areas is faint or absent), and a quiet one otherwise, of the same width so
// that nothing moves when focus does.
class QAbstractScrollArea;

namespace precis::ui {

void show_keyboard_focus(QAbstractScrollArea* area);

}  // namespace precis::ui
