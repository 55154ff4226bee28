"""Chapter 6's display tables, the numbers its prose quotes, and the few sentences whose structure
depends on the data: the toy example, the real-data study, the 1R bridge and the cost."""
