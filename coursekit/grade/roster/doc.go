// Package roster reads the class list and tells which learner an LMS
// bulk-download name (a Canvas file, a Moodle folder) belongs to, so that
// every job names learners the same way.
package roster
