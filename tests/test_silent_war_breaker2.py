"""Outside-reader tests for Silent War 2.1 Base-to-Base transfer and storms.

Cases written from the rule text (seed 000, Silent War 2.0 rev 2.1) BEFORE reading
the rulebook code.  Each test quotes the sentence it checks; expected values come
from the text.

Planned cases (rule: what the text says):
 1. [15.1] "a submarine starting in the Ready for Sea Box of a Base may (player's
    choice) move any number of OpAreas up to its speed" -- a transfer never moves
    more OpAreas than speed in one turn.
 2. [15.1] Note: "departure from a permanent base to an adjacent OpArea is counted
    against its speed rating" -- leaving Pearl counts as one of the speed steps.
 3. [15.1] Note: "departure from a Special Mission Zone (SMZ) base to a connected
    OpArea is not" -- leaving a tender does not count.
 4. [15.11]/[15.26] "A submarine may never move farther from any active base than
    its range value." -- a transfer never passes an OpArea beyond range.
 5. [15.23] "If the submarine cannot return to base in one move, it is moved to the
    closest OpArea it can reach and placed in the "Done" section" (by analogy: a
    transfer that is too long stops short, Transit side up, in an OpArea).
 6. [15.1]/[19.1] "using the OpArea with the lowest number on the line for the
    current War Period which contains a red box through or to which the submarine
    moved. Do not use the OpArea from which the submarine started."
 7. [7.21] Tropical Storm: "Transit Events [19.1] only occur in the OpArea on a
    d10 roll of 0-3."
 8. [7.21] Typhoon: "Transit Events cannot occur in the OpArea."
 9. [7.21] TS damage: "When a submarine is about to enter a Base or Tender ... if
    it ... has transited through or from a Tropical Storm OpArea ... roll a d10.
    On a result of 0, the submarine receives a Damaged marker."  (transfer through
    a TS to a Base)
10. [7.21] Typhoon: undamaged boat "On a result of 0-1, the submarine receives a
    Damaged marker and a second d10 ... If the result is > the defense rating of
    the submarine, the submarine is lost." -- a boat that stops short IN a Typhoon.
11. Player choice: storms never remove a legal move (the text forbids no move
    into a storm; [7.2] Note: storms "cannot be avoided").
12. [24.2] "Wolfpacks cannot transfer from Base to Base".
13. [10.3] "Submarines waiting in a Repair Box may not leave a Base." -- only Ready
    for Sea boats transfer.
14. [15.26] base falls while a boat is under way, leaving it out of range: "is
    damaged and must RTB to the nearest base at a speed one less than its printed
    speed (never less than one)".
15. [15.25] Cautious Transit: "subtract one from the Transit Event check" when
    moving a single OpArea.
16. [21.3] "If a Typhoon marker is in an OpArea adjacent to a Major Base, that Base
    may not make any repair rolls [10.0] or form Wolfpacks [24.0] this turn."
"""
