// Package grader grades submissions one by one: it tells whose work each
// file is (its name, its signed release record, its LMS account), scores
// the card against the learner's own variant, checks whose trace the
// numbers come from and names the typical mistakes. One bad file never
// stops a batch: every submission ends graded or ungradable, with reason.
package grader
