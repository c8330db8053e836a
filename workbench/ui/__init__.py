"""The Streamlit workbench: thin pages over the library (the only package importing streamlit/altair)."""
