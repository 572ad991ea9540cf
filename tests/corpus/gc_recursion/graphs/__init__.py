"""Graph nodes with back references, and recursive walks over nested data."""
