// Found in the unit's own directory: not a toolkit header.
