"""``orderdep why``: from one failing order to its cause (search), the state and a patch
(explain), with the order taken from whatever the user has (sources)."""
