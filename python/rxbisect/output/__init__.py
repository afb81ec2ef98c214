"""What runs leave behind and how it is read: result records, text tables, the HTML report,
figures, computed readings, seed statistics and the comparison with a baseline."""
