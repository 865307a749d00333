/*
 * results.js - the measured results the figure shows when it opens.
 *
 * labs/pathlab compare copies this page beside its results.json and writes
 * a results.js there: window.PATHLAB_RESULTS = {the results.json};. This
 * one, shipped with the page, has none, so the page opens without
 * results (load one with the file picker or by dropping it on the page).
 * It exists so that the page never asks for a script that is not there.
 */
"use strict";
