"""Views of a study's solution space that the pages, the CLI and the report read: the lattice table and overview
(``lattice``, over the packed-key pass of ``sweep``), a node's drill-down (``node_details``), every measure's
properties over the admissible nodes (``exploration``), which rules each node satisfies (``satisfaction``), and
escaped HTML for Jupyter's rich display and the report (``display``)."""
