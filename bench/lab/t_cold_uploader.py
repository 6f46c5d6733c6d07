import streamlit as st
st.title("Trivial")
v = st.slider("value", 0, 100, 50)
st.write(v)
st.file_uploader("Load settings (JSON)", type=["json"], key="up")
