import streamlit as st
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    st.write(v)
    st.query_params["v"] = str(v)
f()
