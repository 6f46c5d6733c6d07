import streamlit as st
st.title("Trivial")
v = st.slider("value", 0, 100, 50)
st.write(v)
with st.sidebar:
    st.selectbox("a", ["x", "y"]); st.selectbox("b", ["x", "y"]); st.page_link("bench/lab/t_cold_uploader.py", label="x") if False else None
st.table({"a": [1, 2], "b": [3, 4]})
st.download_button("d", b"x", "x.txt")
st.toggle("t")
c1, c2 = st.columns(2)
c1.metric("m", 1)
with c2.container(border=True):
    st.caption("c")
