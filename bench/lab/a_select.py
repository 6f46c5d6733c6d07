import streamlit as st
st.title("Trivial")
v = st.select_slider("value", options=list(range(101)), value=50)
st.write(v)
